/*
 * sims/switch/pcap_writer.h - writing Ethernet frames to a pcap file with
 * nanosecond timestamps taken from the simulated clock, placed on the wall
 * clock at a given start (the run's, so Wireshark shows the times the
 * trace exports show; docs/traces.md).
 *
 * The file is classic pcap, little-endian: magic 0xa1b23c4d (nanosecond
 * resolution), version 2.4, snaplen 65535, link type 1 (Ethernet); each
 * record has a 16-byte header (seconds, nanoseconds, captured length,
 * original length) and the frame without preamble and FCS. A record's
 * time is the start plus the simulated time, in whole nanoseconds
 * (picoseconds truncated). Writing is buffered; nothing is printed.
 */
#ifndef MORTAR_SIMS_PCAP_WRITER_H
#define MORTAR_SIMS_PCAP_WRITER_H

#include <stdint.h>

#define PCAP_MAGIC_NS          0xa1b23c4du
#define PCAP_SNAPLEN           65535u
#define PCAP_LINKTYPE_ETHERNET 1u

typedef struct pcap_writer pcap_writer;

/* Creates (truncates) `path` and writes the file header; simulated time 0
 * is `epoch_unix_ns` nanoseconds after 1970 (0: 1970 itself). Returns 0 or
 * MORTAR_EIO (errno tells why) / MORTAR_ENOMEM; *out is NULL on failure. */
int pcap_writer_open(pcap_writer **out, const char *path, uint64_t epoch_unix_ns);

/* Appends one frame sent at simulated time `time_ps`. A failed write is
 * remembered and reported by pcap_writer_close(). */
void pcap_writer_frame(pcap_writer *w, uint64_t time_ps, const void *frame,
                       uint32_t size);

/* Flushes, closes and frees `w` (NULL is allowed). Returns 0, or MORTAR_EIO
 * when any write failed. */
int pcap_writer_close(pcap_writer *w);

#endif
