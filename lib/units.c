/*
 * units.c - durations and bandwidths with units, exact integer arithmetic.
 *
 * Parsing keeps decimals exact: "2.5us" is 2500000 ps without going through
 * floating point, so a spec value always maps to the same picosecond count.
 */
#include "mortar/time.h"
#include "mortar/error.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Parses "<digits>[.<digits>]<unit>" against a unit table, exactly. */
static int parse_scaled(const char *text, const char *const units[],
                        const uint64_t scales[], uint64_t *out)
{
    const char *p = text;
    unsigned __int128 whole = 0, frac = 0, frac_div = 1;
    int digits = 0;
    while (isdigit((unsigned char)*p)) {
        whole = whole * 10 + (unsigned)(*p++ - '0');
        digits++;
        if (whole > UINT64_MAX)
            return MORTAR_EINVAL;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            if (frac_div < 1000000000000000000ull) {
                frac = frac * 10 + (unsigned)(*p - '0');
                frac_div *= 10;
            } else if (*p != '0') {
                return MORTAR_EINVAL; /* more precision than we keep */
            }
            p++;
            digits++;
        }
    }
    if (digits == 0)
        return MORTAR_EINVAL;
    for (int i = 0; units[i]; i++) {
        if (strcmp(p, units[i]) != 0)
            continue;
        unsigned __int128 v = whole * scales[i];
        unsigned __int128 f = frac * scales[i];
        if (f % frac_div != 0)
            return MORTAR_EINVAL; /* finer than the base unit */
        v += f / frac_div;
        if (v > UINT64_MAX)
            return MORTAR_EINVAL;
        *out = (uint64_t)v;
        return MORTAR_OK;
    }
    return MORTAR_EINVAL;
}

int mortar_time_parse(const char *text, uint64_t *time_ps)
{
    static const char *const units[] = {"ps", "ns", "us", "ms", "s", NULL};
    static const uint64_t scales[] = {1, 1000ull, 1000000ull, 1000000000ull,
                                      1000000000000ull};
    if (!text)
        return MORTAR_EINVAL;
    return parse_scaled(text, units, scales, time_ps);
}

int mortar_bandwidth_parse(const char *text, uint64_t *bits_per_s)
{
    static const char *const units[] = {"bps", "Kbps", "Mbps", "Gbps", "Tbps", NULL};
    static const uint64_t scales[] = {1, 1000ull, 1000000ull, 1000000000ull,
                                      1000000000000ull};
    if (!text)
        return MORTAR_EINVAL;
    return parse_scaled(text, units, scales, bits_per_s);
}

uint64_t mortar_serialization_ps(uint64_t bytes, uint64_t bits_per_s)
{
    if (bits_per_s == 0)
        return 0;
    unsigned __int128 num = (unsigned __int128)bytes * 8u * 1000000000000ull;
    return (uint64_t)((num + bits_per_s - 1) / bits_per_s);
}

char *mortar_time_format(uint64_t t, char *buf, size_t size)
{
    static const struct {
        const char *name;
        uint64_t scale;
    } units[] = {{"s", 1000000000000ull}, {"ms", 1000000000ull}, {"us", 1000000ull},
                 {"ns", 1000ull}, {"ps", 1}};
    size_t i = 0;
    while (i < 4 && t < units[i].scale)
        i++;
    uint64_t whole = t / units[i].scale, rest = t % units[i].scale;
    if (rest == 0) {
        snprintf(buf, size, "%" PRIu64 "%s", whole, units[i].name);
        return buf;
    }
    char frac[16];
    int width = 0;
    for (uint64_t s = units[i].scale; s > 1; s /= 10)
        width++;
    snprintf(frac, sizeof frac, "%0*" PRIu64, width, rest);
    for (int k = width - 1; k > 0 && frac[k] == '0'; k--)
        frac[k] = '\0';
    snprintf(buf, size, "%" PRIu64 ".%s%s", whole, frac, units[i].name);
    return buf;
}
