/*
 * adler32.h - the Adler-32 checksum (RFC 1950, section 8.2), computed in
 * steps: the device model feeds it one DMA chunk at a time, the driver
 * computes the expected answer in one go. Header-only, so both have it.
 */
#ifndef MY_DEVICE_ADLER32_H
#define MY_DEVICE_ADLER32_H

#include <stddef.h>
#include <stdint.h>

#define ADLER32_MOD   65521u
#define ADLER32_START 1u

/* The checksum `adler` (ADLER32_START for an empty buffer) extended by
 * `len` more bytes. O(len) with a modulo per byte: buffers are small. */
static inline uint32_t adler32_update(uint32_t adler, const uint8_t *data, size_t len)
{
    uint32_t a = adler & 0xffff, b = adler >> 16;
    for (size_t i = 0; i < len; i++) {
        a = (a + data[i]) % ADLER32_MOD;
        b = (b + a) % ADLER32_MOD;
    }
    return (b << 16) | a;
}

#endif
