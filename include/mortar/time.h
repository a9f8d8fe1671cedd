/*
 * mortar/time.h - simulated time.
 *
 * All simulated time in mortar is an unsigned 64-bit count of picoseconds
 * (about 213 days of range). Convert only at the boundaries: QEMU's
 * nanoseconds, guest clocks, trace export. There is no floating-point time
 * inside the simulation.
 */
#ifndef MORTAR_TIME_H
#define MORTAR_TIME_H

#include <stddef.h>
#include <stdint.h>

/* The largest time; a link that terminated reports it as its horizon. */
#define MORTAR_TIME_MAX UINT64_MAX

#define MORTAR_PS(x) ((uint64_t)(x))
#define MORTAR_NS(x) ((uint64_t)(x) * 1000ull)
#define MORTAR_US(x) ((uint64_t)(x) * 1000000ull)
#define MORTAR_MS(x) ((uint64_t)(x) * 1000000000ull)
#define MORTAR_S(x)  ((uint64_t)(x) * 1000000000000ull)

/*
 * Formats `time_ps` for people ("1.5us", "250ns", "12ps") into `buf` and
 * returns `buf`. Exact: no digits are lost, trailing zeros are dropped.
 */
char *mortar_time_format(uint64_t time_ps, char *buf, size_t size);

/*
 * Parses a duration with a unit ("500ns", "2.5us", "1ms", "3s", "40ps") into
 * picoseconds. A bare number is rejected (the unit is required). Returns 0,
 * or MORTAR_EINVAL when the text is not a duration or does not fit.
 */
int mortar_time_parse(const char *text, uint64_t *time_ps);

/*
 * Parses a bandwidth ("10Gbps", "100Mbps", "8bps", "32GTps" is not accepted)
 * into bits per second. Returns 0 or MORTAR_EINVAL.
 */
int mortar_bandwidth_parse(const char *text, uint64_t *bits_per_s);

/*
 * Serialization time of `bytes` at `bits_per_s`, rounded up to the next
 * picosecond. 0 when `bits_per_s` is 0 (no bandwidth limit).
 */
uint64_t mortar_serialization_ps(uint64_t bytes, uint64_t bits_per_s);

#endif
