/*
 * mortar/error.h - result codes.
 *
 * Every mortar function that can fail returns 0 on success or one of the
 * negative MORTAR_E codes below. Objects that can fail (a link, a loop, a
 * parameter set) also keep the text of their last error with its context;
 * see the `_errmsg` function of each object.
 *
 * The codes, their names and their texts are one list, MORTAR_ERRNO_MAP:
 * the enum, mortar_strerror and mortar_err_name are made from it, so a code
 * cannot lose its text.
 */
#ifndef MORTAR_ERROR_H
#define MORTAR_ERROR_H

/* XX(NAME, value, text) for every result code: MORTAR_<NAME> is `value`,
 * mortar_strerror gives `text`. */
#define MORTAR_ERRNO_MAP(XX)                                                             \
    XX(OK, 0, "success")                                                                 \
    /* an argument or parameter is not valid */                                          \
    XX(EINVAL, -1, "invalid argument")                                                   \
    /* out of memory */                                                                  \
    XX(ENOMEM, -2, "out of memory")                                                      \
    /* a system call failed (errno is in the message) */                                 \
    XX(EIO, -3, "system call failed")                                                    \
    /* the peer speaks another protocol, or a bad message */                             \
    XX(EPROTO, -4, "protocol error")                                                     \
    /* the peer speaks another version of the link protocol */                           \
    XX(EVERSION, -5, "protocol version mismatch")                                        \
    /* a message does not fit in a slot */                                               \
    XX(ETOOBIG, -6, "message too big for a slot")                                        \
    /* nothing to do now (ring full or empty); try again */                              \
    XX(EAGAIN, -7, "try again")                                                          \
    /* the peer closed the link or died */                                               \
    XX(EPEER, -8, "peer died or closed the link")                                        \
    /* a wait ran out of wall time */                                                    \
    XX(ETIMEDOUT, -9, "timed out")                                                       \
    /* a named thing does not exist */                                                   \
    XX(ENOENT, -10, "not found")                                                         \
    /* the call is not valid in the object's current state */                            \
    XX(ESTATE, -11, "invalid in the current state")

#define MORTAR_ERRNO_ENUM_(name, value, text) MORTAR_##name = value,
enum { MORTAR_ERRNO_MAP(MORTAR_ERRNO_ENUM_) };
#undef MORTAR_ERRNO_ENUM_

/* A short English description of a MORTAR_E code ("peer died or closed the
 * link"); a process that fails because its peer left says this text.
 * "unknown error" for a value that is no code. Never NULL; static text. */
const char *mortar_strerror(int code);

/* The code's name as C spells it ("MORTAR_EPEER"), for logs and tests;
 * "MORTAR_UNKNOWN" for a value that is no code. Never NULL; static text. */
const char *mortar_err_name(int code);

#endif
