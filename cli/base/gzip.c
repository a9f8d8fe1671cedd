/*
 * gzip.c - one gzip member with zlib (see gzip.h).
 */
#include "gzip.h"

#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

void *gzip_bytes(const void *data, size_t len, size_t *out_len)
{
    z_stream z = {0};
    if (len > UINT32_MAX) /* zlib counts a buffer in 32 bits */
        return NULL;
    /* 15 window bits + 16: a gzip header and trailer, not zlib's */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    uLong cap = deflateBound(&z, (uLong)len);
    unsigned char *out = malloc(cap);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = out ? deflate(&z, Z_FINISH) : Z_MEM_ERROR;
    *out_len = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}
