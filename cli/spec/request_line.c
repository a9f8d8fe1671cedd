/*
 * request_line.c - reading the per-request lines of a run's hosts (see
 * request_line.h): one field by its key, and every other numeric field.
 */
#include "request_line.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_MAX 64

bool request_line_is(const char *line)
{
    return !strncmp(line, "req=", 4);
}

/* Whether [value, end) is a whole decimal integer that fits; into *out. */
static bool whole_integer(const char *value, const char *end, int64_t *out)
{
    const char *digits = value + (*value == '-');
    if (digits == end || (size_t)(end - digits) != strspn(digits, "0123456789") ||
        end - digits > 19)
        return false;
    char buf[24], *stop;
    snprintf(buf, sizeof buf, "%.*s", (int)(end - value), value);
    errno = 0;
    long long v = strtoll(buf, &stop, 10);
    if (errno || *stop)
        return false;
    *out = v;
    return true;
}

int request_line_int(const char *line, const char *key, int64_t *out)
{
    char pat[KEY_MAX + 2];
    snprintf(pat, sizeof pat, "%s=", key);
    const char *p = strstr(line, pat);
    while (p && p != line && p[-1] != ' ' && p[-1] != '\t')
        p = strstr(p + 1, pat);
    if (!p)
        return REQUEST_FIELD_ABSENT;
    const char *value = p + strlen(pat);
    const char *end = value + strcspn(value, " \t\r\n");
    return whole_integer(value, end, out) ? REQUEST_FIELD_OK : REQUEST_FIELD_MALFORMED;
}

/* The keys of the contract that are a request's own columns. */
static bool is_contract_key(const char *key, size_t len)
{
    static const char *const keys[] = {REQUEST_KEY_ID, REQUEST_KEY_VALUE, REQUEST_KEY_VERIFIED,
                                       REQUEST_KEY_START};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == len && !strncmp(keys[i], key, len))
            return true;
    return false;
}

/* The length of the key that starts `word` (up to its '='), or 0 when the
 * word is not `<key>=...` with a key of the rule. */
static size_t key_length(const char *word, size_t len)
{
    const char *eq = memchr(word, '=', len);
    size_t klen = eq ? (size_t)(eq - word) : 0;
    if (klen == 0 || klen >= KEY_MAX || !islower((unsigned char)word[0]) ||
        strspn(word, "abcdefghijklmnopqrstuvwxyz0123456789_") != klen)
        return 0;
    return klen;
}

void request_line_fields(json_t *fields, const char *line)
{
    for (const char *p = line; *p;) {
        size_t len = strcspn(p, " \t\r\n");
        size_t klen = key_length(p, len);
        const char *value = p + klen + 1;
        int64_t v;
        if (klen && !is_contract_key(p, klen) && whole_integer(value, p + len, &v)) {
            char key[KEY_MAX];
            snprintf(key, sizeof key, "%.*s", (int)klen, p);
            json_object_set_new(fields, key, json_integer(v));
        }
        p += len;
        p += strspn(p, " \t\r\n");
    }
}
