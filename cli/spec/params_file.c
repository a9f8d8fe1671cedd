/*
 * params_file.c - writing a host's per-run parameter file (see
 * params_file.h).
 */
#include "errbuf.h"
#include "params_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long params_base64(const char *in, size_t n, char *out, size_t size)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t need = (n + 2) / 3 * 4 + 1, o = 0;
    if (need > size)
        return -1;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)(unsigned char)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)(unsigned char)in[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)in[i + 2];
        out[o++] = tab[(v >> 18) & 63];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    out[o] = '\0';
    return (long)o;
}

/* Appends "mortar.KEY=VALUE\n"; a value with a line break would forge
 * another parameter and is refused. */
static int add(FILE *f, const char *key, const char *value, char *err, size_t size)
{
    if (strpbrk(value, "\r\n"))
        return errbuf_fail(err, size, "parameter mortar.%s holds a line break", key);
    fprintf(f, "mortar.%s=%s\n", key, value);
    return 0;
}

static int write_all(FILE *f, const char *name, json_t *host, char *err, size_t size)
{
    if (add(f, "hostname", name, err, size))
        return -1;
    json_t *ip = json_object_get(host, "ip"), *mtu = json_object_get(host, "mtu");
    if (json_is_string(ip) && add(f, "ip", json_string_value(ip), err, size))
        return -1;
    if (json_is_integer(mtu)) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)json_integer_value(mtu));
        add(f, "mtu", text, err, size);
    }
    const char *run = json_string_value(json_object_get(host, "run"));
    if (!run)
        run = "true";
    size_t run_size = strlen(run), b64_size = (run_size + 2) / 3 * 4 + 1;
    char *b64 = malloc(b64_size);
    if (!b64 || params_base64(run, run_size, b64, b64_size) < 0) {
        free(b64);
        return errbuf_fail(err, size, "out of memory");
    }
    int rc = add(f, "run64", b64, err, size);
    free(b64);
    return rc;
}

int params_file_write(const char *path, const char *name, json_t *host, char *err,
                      size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return errbuf_fail(err, size, "cannot create %s (it must not exist)", path);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return errbuf_fail(err, size, "cannot write %s", path);
    }
    int rc = write_all(f, name, host, err, size);
    if (fclose(f) != 0 && rc == 0)
        rc = errbuf_fail(err, size, "cannot write %s", path);
    if (rc)
        unlink(path);
    return rc;
}
