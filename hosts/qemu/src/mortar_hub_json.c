/*
 * mortar_hub_json.c - strings in the host's JSON reports (see
 * mortar_hub_json.h).
 */
#include "mortar_hub_json.h"

void mortar_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const char *c = s ? s : ""; *c; c++) {
        if (*c == '"' || *c == '\\') {
            fprintf(f, "\\%c", *c);
        } else if ((unsigned char)*c < 0x20) {
            fprintf(f, "\\u%04x", (unsigned char)*c);
        } else {
            fputc(*c, f);
        }
    }
    fputc('"', f);
}
