/*
 * matmul_wire.c - encoding and decoding of the matmul client/server
 * headers (matmul_wire.h), byte by byte so the layout is the documented one
 * whatever the compiler does with structs.
 */
#include "matmul_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

#define REQ_MAGIC "MMRQ"
#define RSP_MAGIC "MMRS"

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

void matmul_wire_req_encode(const matmul_wire_req *r, uint8_t out[MATMUL_WIRE_REQ_BYTES])
{
    memset(out, 0, MATMUL_WIRE_REQ_BYTES);
    memcpy(out, REQ_MAGIC, 4);
    put16(out + 4, MATMUL_WIRE_VERSION);
    put16(out + 6, r->type);
    put64(out + 8, r->req_id);
    put32(out + 16, r->n);
    put32(out + 20, r->result);
    put64(out + 24, r->payload_bytes);
}

void matmul_wire_rsp_encode(const matmul_wire_rsp *r, uint8_t out[MATMUL_WIRE_RSP_BYTES])
{
    memset(out, 0, MATMUL_WIRE_RSP_BYTES);
    memcpy(out, RSP_MAGIC, 4);
    put16(out + 4, MATMUL_WIRE_VERSION);
    put16(out + 6, r->status);
    put64(out + 8, r->req_id);
    put32(out + 16, r->n);
    put32(out + 20, r->result);
    put64(out + 24, r->payload_bytes);
    put64(out + 32, r->service_ns);
}

int matmul_wire_req_decode(const uint8_t in[MATMUL_WIRE_REQ_BYTES], matmul_wire_req *r)
{
    if (memcmp(in, REQ_MAGIC, 4) != 0 || get16(in + 4) != MATMUL_WIRE_VERSION) {
        return -1;
    }
    *r = (matmul_wire_req){.type = get16(in + 6),
                           .req_id = get64(in + 8),
                           .n = get32(in + 16),
                           .result = get32(in + 20),
                           .payload_bytes = get64(in + 24)};
    return 0;
}

int matmul_wire_rsp_decode(const uint8_t in[MATMUL_WIRE_RSP_BYTES], matmul_wire_rsp *r)
{
    if (memcmp(in, RSP_MAGIC, 4) != 0 || get16(in + 4) != MATMUL_WIRE_VERSION) {
        return -1;
    }
    *r = (matmul_wire_rsp){.status = get16(in + 6),
                           .req_id = get64(in + 8),
                           .n = get32(in + 16),
                           .result = get32(in + 20),
                           .payload_bytes = get64(in + 24),
                           .service_ns = get64(in + 32)};
    return 0;
}

int matmul_wire_tune_socket(int fd)
{
    int one = 1;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
        return -errno;
    }
    return 0;
}
