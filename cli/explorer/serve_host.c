/*
 * serve_host.c - the Host header check of `mortar serve` (serve_host.h).
 * The same reading serves the request's header and the --allow-host
 * values, so a value that is allowed is one a request can carry.
 */
#include "serve_host.h"

#include <ctype.h>
#include <string.h>

static bool name_char(char c, bool bracketed)
{
    if (bracketed)
        return isxdigit((unsigned char)c) || c == ':' || c == '.';
    return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_';
}

/* The length of the name at the start of `text` (an IPv6 address with its
 * brackets), or 0 when there is none. */
static size_t name_length(const char *text)
{
    bool bracketed = text[0] == '[';
    size_t n = bracketed;
    while (text[n] && name_char(text[n], bracketed))
        n++;
    if (!bracketed)
        return n;
    return text[n] == ']' && n > 1 ? n + 1 : 0;
}

/* A port, 1 to 65535, in decimal digits only; 0 when `text` is not one. */
static unsigned port_number(const char *text)
{
    unsigned port = 0;
    size_t n = 0;
    for (; isdigit((unsigned char)text[n]) && n < 5; n++)
        port = port * 10 + (unsigned)(text[n] - '0');
    return n > 0 && !text[n] && port <= 65535 ? port : 0;
}

int serve_host_parse(const char *text, serve_host *out)
{
    size_t n = name_length(text);
    if (n == 0 || n > SERVE_HOST_NAME_MAX)
        return -1;
    for (size_t i = 0; i < n; i++)
        out->name[i] = (char)tolower((unsigned char)text[i]);
    out->name[n] = '\0';
    out->port = 0;
    if (!text[n])
        return 0;
    if (text[n] != ':')
        return -1;
    out->port = port_number(text + n + 1);
    return out->port ? 0 : -1;
}

static bool is_own_name(const char *name)
{
    return !strcmp(name, "127.0.0.1") || !strcmp(name, "localhost");
}

bool serve_hosts_allow(const serve_hosts *hosts, const char *text)
{
    serve_host h;
    if (!text || serve_host_parse(text, &h))
        return false;
    unsigned port = h.port ? h.port : SERVE_HOST_DEFAULT_PORT;
    if (is_own_name(h.name) && port == hosts->port)
        return true;
    for (size_t i = 0; i < hosts->n_allowed; i++) {
        const serve_host *a = &hosts->allowed[i];
        if (!strcmp(a->name, h.name) && (!a->port || a->port == port))
            return true;
    }
    return false;
}
