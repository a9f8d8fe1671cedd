/*
 * serve_host.h - which Host headers `mortar serve` answers to: its own
 * address (127.0.0.1 or localhost, with the port it listens on) and the
 * names given with --allow-host. A request with any other Host, or none,
 * was meant for another site and reached the server anyway: DNS rebinding,
 * where a page on evil.example.com has its name resolve to 127.0.0.1 and so
 * reads the explorer as its own. The server answers it 421 and no page.
 */
#ifndef MORTAR_CLI_SERVE_HOST_H
#define MORTAR_CLI_SERVE_HOST_H

#include <stdbool.h>
#include <stddef.h>

#define SERVE_HOST_NAME_MAX     255
#define SERVE_HOST_DEFAULT_PORT 80 /* a Host without a port means HTTP's */

/* A Host value, NAME or NAME:PORT, taken apart. NAME is a DNS name or an
 * IPv4 address (letters, digits, '.', '-', '_'), or an IPv6 address in
 * brackets (kept with them); it is lower-cased, as names are compared
 * without regard to case. */
typedef struct serve_host {
    char name[SERVE_HOST_NAME_MAX + 1];
    unsigned port; /* 1 to 65535; 0 when the value names none */
} serve_host;

/* Reads `text` into `out`: 0, or -1 when it is not NAME or NAME:PORT
 * (empty, a character a name cannot hold, a port that is not 1 to 65535). */
int serve_host_parse(const char *text, serve_host *out);

/* What the server answers to. The caller owns `allowed`. */
typedef struct serve_hosts {
    unsigned port;             /* the port it listens on */
    const serve_host *allowed; /* --allow-host: NAME on any port, NAME:PORT on that one */
    size_t n_allowed;
} serve_hosts;

/* Whether a request whose Host header is `text` (NULL: it has none) is
 * meant for this server. */
bool serve_hosts_allow(const serve_hosts *hosts, const char *text);

#endif
