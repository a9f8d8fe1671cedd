/*
 * mortar_hub_json.h - strings in the host's JSON reports (host.json: the
 * fingerprint, the profile). A link's name comes from QEMU's command
 * line, so it is written escaped, whatever it holds.
 *
 * Plain C: tests/test_hub_digest.c compiles it in.
 */
#ifndef MORTAR_HUB_JSON_H
#define MORTAR_HUB_JSON_H

#include <stdio.h>

/* `s` as a JSON string, quotes included; NULL writes "". */
void mortar_json_string(FILE *f, const char *s);

#endif
