/*
 * error.c - text for mortar's result codes.
 */
#include "mortar/error.h"

const char *mortar_strerror(int code)
{
    switch (code) {
    case MORTAR_OK: return "success";
    case MORTAR_EINVAL: return "invalid argument";
    case MORTAR_ENOMEM: return "out of memory";
    case MORTAR_EIO: return "system call failed";
    case MORTAR_EPROTO: return "protocol error";
    case MORTAR_EVERSION: return "protocol version mismatch";
    case MORTAR_ETOOBIG: return "message too big for a slot";
    case MORTAR_EAGAIN: return "try again";
    case MORTAR_EPEER: return "peer died or closed the link";
    case MORTAR_ETIMEDOUT: return "timed out";
    case MORTAR_ENOENT: return "not found";
    case MORTAR_ESTATE: return "invalid in the current state";
    default: return "unknown error";
    }
}
