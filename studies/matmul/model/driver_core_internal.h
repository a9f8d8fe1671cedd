/*
 * driver_core_internal.h - what the driver core's files share
 * (driver_core.c, driver_core_a.c, driver_core_b.c, driver_core_regcopy.c);
 * adapters include driver_core.h only.
 */
#ifndef MORTAR_MATMUL_DRIVER_CORE_INTERNAL_H
#define MORTAR_MATMUL_DRIVER_CORE_INTERNAL_H

#include "model/driver_core.h"

/* Formats c->err; returns `code`. */
int matmul_core_fail(matmul_core *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* 0, or MORTAR_EIO with "what: why" when an access failed (ops->io_failed). */
int matmul_core_io_ok(matmul_core *c, const char *what);

/* A, regcopy: polls STATUS at `reg` until DONE or ERROR (value in *st),
 * pausing between reads; MORTAR_ETIMEDOUT after o.timeout_ps. */
int matmul_core_poll_status(matmul_core *c, uint64_t reg, uint32_t *st);

/* A, regcopy, after STATUS.ERROR: ERR_CODE read (into *dev_error, may be
 * NULL), STATUS <- ERROR; returns MORTAR_EPROTO. */
int matmul_core_device_error(matmul_core *c, uint32_t *dev_error);

#endif
