/*
 * version.c - the version of the running libmortar (mortar/version.h), for
 * programs and plugins that compare it with the headers they were built
 * against.
 */
#include "mortar/version.h"

const char *mortar_version(void)
{
    return MORTAR_VERSION_STRING;
}

unsigned mortar_version_major(void)
{
    return MORTAR_VERSION_MAJOR;
}
