/*
 * matmul_wire.h - the wire format between mortar-matmul-client and
 * mortar-matmul-server (TCP, one or more requests in flight per
 * connection). All integers little-endian.
 *
 * Request: a 32-byte header, then the payload.
 *
 *   0  4  magic "MMRQ"
 *   4  2  version (2)
 *   6  2  type: 1 MULTIPLY (payload: A then B, n*n int8 each, row-major)
 *               2 STATS    (no payload: the server prints its per-request
 *                           lines now and answers with an empty response)
 *   8  8  request id (echoed)
 *  16  4  n (a multiple of 128; the server says which it supports)
 *  20  4  result format the client expects: 0 int8 (the product
 *         requantized, studies/matmul/model/result.h), 1 int32 (MULTIPLY; 0 for STATS)
 *  24  8  payload bytes (2*n*n for MULTIPLY, 0 for STATS)
 *
 * Response: a 40-byte header, then the payload.
 *
 *   0  4  magic "MMRS"
 *   4  2  version (2)
 *   6  2  status: 0 OK, 1 BAD_REQUEST (n or result format not the
 *         server's), 2 FAILED (the backend reported an error)
 *   8  8  request id
 *  16  4  n
 *  20  4  result format of the payload (as in the request)
 *  24  8  payload bytes (for an OK MULTIPLY: C, n*n elements row-major,
 *         n*n bytes as int8 or 4*n*n as int32; else 0)
 *  32  8  service_ns: the server's effective service time of the request
 *         (driver handed it to the backend until it saw it done; 0 if none)
 *
 * Responses on a connection come in the order the server finished the
 * requests, which for every backend is the order they arrived.
 */
#ifndef MORTAR_GUEST_MATMUL_WIRE_H
#define MORTAR_GUEST_MATMUL_WIRE_H

#include <stdint.h>

#define MATMUL_WIRE_VERSION   2u
#define MATMUL_WIRE_REQ_BYTES 32u
#define MATMUL_WIRE_RSP_BYTES 40u

enum {
    MATMUL_WIRE_MULTIPLY = 1,
    MATMUL_WIRE_STATS = 2,
};

enum {
    MATMUL_WIRE_OK = 0,
    MATMUL_WIRE_BAD_REQUEST = 1,
    MATMUL_WIRE_FAILED = 2,
};

/* The result format fields hold matmul_result values (studies/matmul/model/result.h):
 * MATMUL_RESULT_I8 0, MATMUL_RESULT_I32 1. */
typedef struct matmul_wire_req {
    uint16_t type;
    uint64_t req_id;
    uint32_t n;
    uint32_t result;
    uint64_t payload_bytes;
} matmul_wire_req;

typedef struct matmul_wire_rsp {
    uint16_t status;
    uint64_t req_id;
    uint32_t n;
    uint32_t result;
    uint64_t payload_bytes;
    uint64_t service_ns;
} matmul_wire_rsp;

void matmul_wire_req_encode(const matmul_wire_req *r, uint8_t out[MATMUL_WIRE_REQ_BYTES]);
void matmul_wire_rsp_encode(const matmul_wire_rsp *r, uint8_t out[MATMUL_WIRE_RSP_BYTES]);

/* Decode a header. Returns 0, or -1 when magic or version is wrong. */
int matmul_wire_req_decode(const uint8_t in[MATMUL_WIRE_REQ_BYTES], matmul_wire_req *r);
int matmul_wire_rsp_decode(const uint8_t in[MATMUL_WIRE_RSP_BYTES], matmul_wire_rsp *r);

/* Make a TCP socket non-blocking with TCP_NODELAY. Returns 0 or -errno. */
int matmul_wire_tune_socket(int fd);

#endif
