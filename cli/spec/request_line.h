/*
 * request_line.h - the per-request lines the hosts of a run print on their
 * consoles (docs/studies.md, "The per-request contract"): space-separated
 * `key=value` fields starting with the request's id, `req=<i>`. The
 * contract's own keys (req, latency_ns, verified, start_ns) are a
 * request's columns; every other `<key>=<integer>` field is one of its
 * named fields (request_fields, db.h), whatever the study calls it.
 *
 *   req=7 latency_ns=2431800 verified=1 start_ns=17040000 conn=0
 *   req=7 service_ns=2190000 device_compute_ns=1920000 product=ok
 *
 * gives request 7 the fields conn, service_ns and device_compute_ns
 * (product=ok is not a number).
 */
#ifndef MORTAR_CLI_REQUEST_LINE_H
#define MORTAR_CLI_REQUEST_LINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* The contract's own keys: the request's id, its value (the metric, in ns),
 * whether its result was verified (1) and when it started (ns). */
#define REQUEST_KEY_ID       "req"
#define REQUEST_KEY_VALUE    "latency_ns"
#define REQUEST_KEY_VERIFIED "verified"
#define REQUEST_KEY_START    "start_ns"

/* Whether `line` is a per-request line (it starts with "req="). */
bool request_line_is(const char *line);

/* What request_line_int found. */
enum { REQUEST_FIELD_OK = 0, REQUEST_FIELD_ABSENT = 1, REQUEST_FIELD_MALFORMED = -1 };

/*
 * The value of field `key` of `line` (a word "<key>=<value>") into *out:
 * REQUEST_FIELD_OK when the value is a whole decimal integer that fits 64
 * bits (an optional '-', digits, nothing else up to the next space),
 * REQUEST_FIELD_ABSENT when the line has no such field,
 * REQUEST_FIELD_MALFORMED for anything else ("abc", "12abc", "1x", "",
 * "99999999999999999999"). The first such word counts.
 */
int request_line_int(const char *line, const char *key, int64_t *out);

/* Adds every `<key>=<integer>` field of `line` but the contract's own to
 * `fields` (a JSON object; a later one replaces an earlier one). A key is
 * lower-case letters, digits and '_', starting with a letter, at most 63
 * long; a field with another key, or whose value is not a whole integer,
 * is left out. */
void request_line_fields(json_t *fields, const char *line);

#endif
