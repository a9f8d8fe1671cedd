/*
 * study_wire.h - a study's own protocol on the network, as its study file
 * describes it ("wire"), so that Wireshark and tshark decode the study's
 * traffic as what it is (a dissector generated from it, study_wire_lua)
 * instead of guessing from the port (TCP 7000, say, is registered to an
 * unrelated protocol, whose decoder calls the frames malformed).
 *
 *   "wire": {"title": "request/response of the client and the server",
 *            "tcp_port": 7000,
 *            "byte_order": "little",
 *            "messages": [
 *              {"name": "request", "magic": "RQ01", "header_bytes": 32,
 *               "payload_bytes": "payload",
 *               "fields": [{"name": "id", "offset": 8, "bytes": 8},
 *                          {"name": "kind", "offset": 6, "bytes": 2,
 *                           "values": {"1": "work", "2": "stats"}},
 *                          {"name": "payload", "offset": 24, "bytes": 8}]}]}
 *
 * Each message starts with its magic (1 to 8 letters or digits) at offset
 * 0 and has a fixed header of header_bytes, then as many bytes of payload
 * as its field named by "payload_bytes" says (no such key: none). Fields
 * are unsigned integers of 1, 2, 4 or 8 bytes inside the header, in
 * byte_order ("little" or "big"); "values" names some of their values.
 * Names are lower-case identifiers; the dissector is registered as
 * "mortar_<study name>" with fields "mortar_<study>.<message>.<field>".
 */
#ifndef MORTAR_CLI_STUDY_WIRE_H
#define MORTAR_CLI_STUDY_WIRE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define STUDY_WIRE_MAX_MESSAGES 8
#define STUDY_WIRE_MAX_FIELDS   16
#define STUDY_WIRE_MAX_VALUES   16
#define STUDY_WIRE_NAME_MAX     32 /* a name's characters, without its NUL */
#define STUDY_WIRE_MAGIC_MAX    8
#define STUDY_WIRE_TEXT_MAX     64 /* a title's or a value name's characters */

typedef struct study_wire_value {
    unsigned long long value;
    char name[STUDY_WIRE_TEXT_MAX + 1];
} study_wire_value;

typedef struct study_wire_field {
    char name[STUDY_WIRE_NAME_MAX + 1];
    unsigned offset, bytes;
    study_wire_value values[STUDY_WIRE_MAX_VALUES];
    size_t nvalues;
} study_wire_field;

typedef struct study_wire_message {
    char name[STUDY_WIRE_NAME_MAX + 1];
    char magic[STUDY_WIRE_MAGIC_MAX + 1];
    unsigned header_bytes;
    int payload_field; /* index into fields, -1: no payload */
    study_wire_field fields[STUDY_WIRE_MAX_FIELDS];
    size_t nfields;
} study_wire_message;

typedef struct study_wire {
    char title[STUDY_WIRE_TEXT_MAX + 1];
    unsigned tcp_port;
    bool big_endian;
    study_wire_message messages[STUDY_WIRE_MAX_MESSAGES];
    size_t nmessages;
} study_wire;

/* Reads a study file's "wire" object `jw` into `out` (about 150 KiB: keep
 * it off the stack): 0, or -1 with `err`
 * saying which member is wrong and why ("messages[1].fields[0].bytes:
 * expected 1, 2, 4 or 8"). */
int study_wire_read(json_t *jw, study_wire *out, char *err, size_t err_size);

/* Writes a Wireshark dissector in Lua for the protocol `wire` of the
 * study named `study_name` to `f`: registered on its TCP port (replacing
 * what the port had), reassembling a message across segments, and
 * checking the magic so that anything else on the port is left to TCP.
 * 0, or -1 when writing failed. */
int study_wire_lua(FILE *f, const char *study_name, const study_wire *wire);

#endif
