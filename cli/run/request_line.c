/*
 * request_line.c - reading the per-request lines of a run's hosts (see
 * request_line.h): one field by its key, and every other numeric field.
 */
#include "request_line.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_MAX 64

bool request_line_is(const char *line)
{
    return !strncmp(line, "req=", 4);
}

int64_t request_line_int(const char *line, const char *key)
{
    char pat[KEY_MAX + 2];
    snprintf(pat, sizeof pat, "%s=", key);
    const char *p = strstr(line, pat);
    while (p && p != line && p[-1] != ' ')
        p = strstr(p + 1, pat);
    return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
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
        if (klen && !is_contract_key(p, klen) &&
            (isdigit((unsigned char)*value) || *value == '-')) {
            char key[KEY_MAX], *end;
            snprintf(key, sizeof key, "%.*s", (int)klen, p);
            errno = 0;
            long long v = strtoll(value, &end, 10);
            if (end == p + len && end != value && errno == 0)
                json_object_set_new(fields, key, json_integer(v));
        }
        p += len;
        p += strspn(p, " \t\r\n");
    }
}
