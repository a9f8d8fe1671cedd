/*
 * pcap_writer.c - nanosecond pcap output for Ethernet models (see
 * pcap_writer.h). Every field is written little-endian byte by byte, so the
 * file is the same on any host.
 */
#include "sims/switch/pcap_writer.h"

#include <stdio.h>
#include <stdlib.h>

#include "mortar/error.h"
#include "mortar/time.h"

struct pcap_writer {
    FILE *f;
    uint64_t epoch_ns; /* wall-clock time of simulated time 0 */
    int failed;
};

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void write_bytes(pcap_writer *w, const void *data, size_t size)
{
    if (size && fwrite(data, 1, size, w->f) != size)
        w->failed = 1;
}

static void write_file_header(pcap_writer *w)
{
    uint8_t h[24] = {0};
    put_le32(h, PCAP_MAGIC_NS);
    put_le16(h + 4, 2); /* version 2.4 */
    put_le16(h + 6, 4);
    /* bytes 8-15: time zone offset and accuracy, both 0 */
    put_le32(h + 16, PCAP_SNAPLEN);
    put_le32(h + 20, PCAP_LINKTYPE_ETHERNET);
    write_bytes(w, h, sizeof h);
}

int pcap_writer_open(pcap_writer **out, const char *path, uint64_t epoch_unix_ns)
{
    *out = NULL;
    pcap_writer *w = calloc(1, sizeof *w);
    if (!w)
        return MORTAR_ENOMEM;
    w->f = fopen(path, "wb");
    if (!w->f) {
        free(w);
        return MORTAR_EIO;
    }
    w->epoch_ns = epoch_unix_ns;
    setvbuf(w->f, NULL, _IOFBF, 1 << 16);
    write_file_header(w);
    *out = w;
    return MORTAR_OK;
}

void pcap_writer_frame(pcap_writer *w, uint64_t time_ps, const void *frame, uint32_t size)
{
    uint64_t ns = w->epoch_ns + time_ps / MORTAR_NS(1);
    uint32_t captured = size < PCAP_SNAPLEN ? size : PCAP_SNAPLEN;
    uint8_t h[16];
    put_le32(h, (uint32_t)(ns / 1000000000ull));
    put_le32(h + 4, (uint32_t)(ns % 1000000000ull));
    put_le32(h + 8, captured);
    put_le32(h + 12, size);
    write_bytes(w, h, sizeof h);
    write_bytes(w, frame, captured);
}

int pcap_writer_close(pcap_writer *w)
{
    if (!w)
        return MORTAR_OK;
    int failed = w->failed;
    if (fclose(w->f) != 0)
        failed = 1;
    free(w);
    return failed ? MORTAR_EIO : MORTAR_OK;
}
