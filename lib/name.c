/*
 * name.c - the rule for names (mortar/name.h). A whitelist, not a
 * blacklist: whatever is not a letter, a digit, '_' or '-' is refused.
 */
#include "mortar/name.h"
#include "mortar/error.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

static int refuse(const char *name, const char *reason, char *why, size_t size)
{
    if (why && size)
        snprintf(why, size, "'%.80s%s' is not a valid name: %s", name,
                 strlen(name) > 80 ? "..." : "", reason);
    return MORTAR_EINVAL;
}

int mortar_name_check(const char *name, char *why, size_t why_size)
{
    if (!name)
        return refuse("", "expected a string", why, why_size);
    size_t len = strlen(name);
    if (len == 0 || len > MORTAR_NAME_MAX)
        return refuse(name, "1 to " MORTAR_NAME_MAX_TEXT " characters", why, why_size);
    for (size_t i = 0; i < len; i++)
        if (!name_char(name[i]))
            return refuse(name, "only letters, digits, '_' and '-'", why, why_size);
    return 0;
}
