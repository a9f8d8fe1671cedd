/*
 * mortar/error.h - result codes.
 *
 * Every mortar function that can fail returns 0 on success or one of the
 * negative MORTAR_E codes below. Objects that can fail (a link, a loop, a
 * parameter set) also keep the text of their last error with its context;
 * see the `_errmsg` function of each object.
 */
#ifndef MORTAR_ERROR_H
#define MORTAR_ERROR_H

enum {
    MORTAR_OK = 0,
    MORTAR_EINVAL = -1,    /* an argument or parameter is not valid */
    MORTAR_ENOMEM = -2,    /* out of memory */
    MORTAR_EIO = -3,       /* a system call failed (errno is in the message) */
    MORTAR_EPROTO = -4,    /* the peer speaks another protocol, or a bad message */
    MORTAR_EVERSION = -5,  /* the peer speaks another version of the link protocol */
    MORTAR_ETOOBIG = -6,   /* a message does not fit in a slot */
    MORTAR_EAGAIN = -7,    /* nothing to do now (ring full or empty); try again */
    MORTAR_EPEER = -8,     /* the peer closed the link or died */
    MORTAR_ETIMEDOUT = -9, /* a wait ran out of wall time */
    MORTAR_ENOENT = -10,   /* a named thing does not exist */
    MORTAR_ESTATE = -11,   /* the call is not valid in the object's current state */
};

/* A short English description of a MORTAR_E code ("peer died or closed the
 * link"); a process that fails because its peer left says this text. */
const char *mortar_strerror(int code);

#endif
