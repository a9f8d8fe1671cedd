/*
 * error.c - the text and the name of mortar's result codes, both made from
 * the one list in mortar/error.h (MORTAR_ERRNO_MAP).
 */
#include "mortar/error.h"

const char *mortar_strerror(int code)
{
#define TEXT_OF(name, value, text)                                                       \
    case MORTAR_##name:                                                                  \
        return text;
    switch (code) {
        MORTAR_ERRNO_MAP(TEXT_OF)
    default:
        return "unknown error";
    }
#undef TEXT_OF
}

const char *mortar_err_name(int code)
{
#define NAME_OF(name, value, text)                                                       \
    case MORTAR_##name:                                                                  \
        return "MORTAR_" #name;
    switch (code) {
        MORTAR_ERRNO_MAP(NAME_OF)
    default:
        return "MORTAR_UNKNOWN";
    }
#undef NAME_OF
}
