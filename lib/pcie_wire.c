/*
 * pcie_wire.c - the PCIe transaction layer's arithmetic: how a message of
 * the PCIe protocol becomes TLPs, how many bytes they are on the link, and
 * how long those bytes take at the link's generation and width (see
 * mortar/pcie_wire.h; docs/pcie.md gives every constant with its source).
 *
 * Exact integer arithmetic: the time of a byte on one lane is a fraction
 * (8125/8 ps at 8 GT/s with 128b/130b), and the share of the link left to
 * TLPs after DLLPs and SKP ordered sets is another; their product is
 * evaluated in 128 bits and rounded up once per message, so the same
 * message always costs the same picoseconds on every machine.
 */
#include "mortar/pcie_wire.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mortar/error.h"
#include "mortar/pcie.h"

/* Per TLP: 2 bytes of sequence number and 4 of LCRC (data link layer)
 * plus 2 of framing (physical layer), as pcie-bench's model counts them
 * for every generation (its DLLP_Hdr). */
#define TLP_FRAMING 8
#define HDR_3DW     12 /* 32-bit address requests, completions */
#define HDR_4DW     16 /* 64-bit address requests, messages (INTx) */
#define DLLP_BYTES  8  /* an ACK or UpdateFC DLLP with its framing */
/* SKP ordered sets: 4 symbols every 1538 (pcie-bench, SKIP_Interval). */
#define SKP_BYTES    4
#define SKP_INTERVAL 1538
#define MSI_BYTES    4 /* an MSI or MSI-X message is a one-doubleword write */
#define FOUR_GIB     (1ull << 32)

/* ---- rates --------------------------------------------------------------- */

/* Picoseconds per byte on one lane, as num/den: 8 bits at the generation's
 * transfer rate after 8b/10b (gen 1, 2) or 128b/130b (gen 3-5) coding. */
static const struct {
    uint32_t num, den;
} lane_ps_per_byte[6] = {
    {0, 1},
    {4000, 1},  /* 2.5 GT/s x 8/10 = 2 Gbit/s */
    {2000, 1},  /* 5 GT/s x 8/10 = 4 Gbit/s */
    {8125, 8},  /* 8 GT/s x 128/130: 1015.625 ps */
    {8125, 16}, /* 16 GT/s */
    {8125, 32}, /* 32 GT/s */
};

/* The base specification's ACK latency limits and UpdateFC intervals in
 * symbol times, per generation (2.5, 5, 8 GT/s and above), width (x1, x2,
 * x4, x8, x16) and MPS (128 ... 4096), as pcie-bench's model tabulates
 * them (Tables 3-7..3-9 and 2-46..2-48 of the 5.0 specification). It
 * charges one 8-byte DLLP per that many bytes of the link; so do we. The
 * two tables are equal but for entries this layer does not use (x32). */
static const uint16_t ack_interval[3][5][6] = {
    {{237, 416, 559, 1071, 2095, 4143},
     {128, 217, 289, 545, 1057, 2081},
     {73, 118, 154, 282, 538, 1050},
     {67, 107, 86, 150, 278, 534},
     {48, 72, 86, 150, 278, 534}},
    {{288, 467, 610, 1122, 2146, 4194},
     {179, 268, 340, 596, 1108, 2132},
     {124, 169, 205, 333, 589, 1101},
     {118, 158, 137, 201, 329, 585},
     {99, 123, 137, 201, 329, 585}},
    {{333, 512, 655, 1167, 2191, 4239},
     {224, 313, 385, 641, 1153, 2177},
     {169, 214, 250, 378, 634, 1146},
     {163, 203, 182, 246, 374, 630},
     {144, 168, 182, 246, 374, 630}},
};

static unsigned log2_exact(uint32_t v)
{
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

/* The interval between DLLPs for `w` (ACKs and UpdateFCs alike). */
static uint64_t dllp_interval(const mortar_pcie_wire *w)
{
    unsigned g = w->gen >= 3 ? 2 : w->gen - 1u;
    unsigned l = log2_exact(w->lanes);
    unsigned m = log2_exact(w->mps) - 7; /* 128 -> 0 */
    return ack_interval[g][l][m];
}

uint64_t mortar_pcie_wire_ps(const mortar_pcie_wire *w, uint64_t bytes)
{
    if (!w->gen || !bytes)
        return 0;
    /* Of every A bytes of the link, 8 go to an ACK and 8 to an UpdateFC
     * (A: dllp_interval), and 4 of every 1538 to SKP: TLPs get
     * (1 - 16/A - 4/1538) = n/d of the line rate. */
    unsigned __int128 a = dllp_interval(w);
    unsigned __int128 d = a * SKP_INTERVAL;
    unsigned __int128 n = d - 2 * DLLP_BYTES * SKP_INTERVAL - SKP_BYTES * a;
    unsigned __int128 num = (unsigned __int128)bytes * lane_ps_per_byte[w->gen].num * d;
    unsigned __int128 den = (unsigned __int128)lane_ps_per_byte[w->gen].den * w->lanes * n;
    return (uint64_t)((num + den - 1) / den);
}

/* ---- parameters ---------------------------------------------------------- */

void mortar_pcie_wire_init(mortar_pcie_wire *w)
{
    memset(w, 0, sizeof *w);
    w->gen = MORTAR_PCIE_DEFAULT_GEN;
    w->lanes = MORTAR_PCIE_DEFAULT_LANES;
    w->mps = MORTAR_PCIE_DEFAULT_MPS;
    w->mrrs = MORTAR_PCIE_DEFAULT_MRRS;
    w->rcb = MORTAR_PCIE_DEFAULT_RCB;
}

static int power_of_two_in(uint32_t v, uint32_t lo, uint32_t hi)
{
    return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

int mortar_pcie_wire_check(const mortar_pcie_wire *w, char *err, size_t err_size)
{
    char why[96] = "";
    if (w->gen == 0)
        return MORTAR_OK;
    if (w->gen > 5)
        snprintf(why, sizeof why, "gen: %u is not one of 1-5", w->gen);
    else if (!power_of_two_in(w->lanes, 1, 16))
        snprintf(why, sizeof why, "lanes: %u is not one of 1, 2, 4, 8, 16", w->lanes);
    else if (!power_of_two_in(w->mps, 128, 4096))
        snprintf(why, sizeof why, "mps: %u is not a power of two from 128 to 4096", w->mps);
    else if (!power_of_two_in(w->mrrs, 128, 4096))
        snprintf(why, sizeof why, "mrrs: %u is not a power of two from 128 to 4096",
                 w->mrrs);
    else if (w->rcb != 64 && w->rcb != 128)
        snprintf(why, sizeof why, "rcb: %u is not 64 or 128", w->rcb);
    if (!why[0])
        return MORTAR_OK;
    if (err && err_size)
        snprintf(err, err_size, "%s", why);
    return MORTAR_EINVAL;
}

/* ---- packets ------------------------------------------------------------- */

/* Payload bytes of a TLP carrying [addr, addr + len): whole doublewords. */
static uint64_t dword_bytes(uint64_t addr, uint64_t len)
{
    return ((addr & 3) + len + 3) / 4 * 4;
}

/* The end of [addr, addr + len), kept in range. */
static uint64_t end_of(uint64_t addr, uint64_t len)
{
    return addr + len < addr ? UINT64_MAX : addr + len;
}

/* TLPs counted so far: their bytes on the link and how many. */
typedef struct tlp_sum {
    uint64_t bytes;
    uint64_t n;
} tlp_sum;

/*
 * Adds the TLPs of [addr, end) cut at every multiple of `b` (a power of
 * two of at most 4096, so none crosses 4 GiB): each with framing and a
 * 3-doubleword header, a 4-doubleword one when `wide` and it lies above
 * 4 GiB (requests below it must use 3: PCIe base specification 2.2.4.1),
 * and its data in whole doublewords when `data`. O(1): a DMA of any size
 * costs the same to count.
 */
static void add_cut(tlp_sum *s, uint64_t addr, uint64_t end, uint64_t b, bool wide, bool data)
{
    if (addr >= end)
        return;
    uint64_t first = addr / b, last = (end - 1) / b, count = last - first + 1;
    uint64_t payload = 0;
    if (data && count == 1)
        payload = dword_bytes(addr, end - addr);
    else if (data)
        payload = dword_bytes(addr, (first + 1) * b - addr) + (count - 2) * b +
                  dword_bytes(0, end - last * b);
    uint64_t above = 0, g = FOUR_GIB / b;
    if (wide && last >= g)
        above = last - (first > g ? first : g) + 1;
    s->bytes += count * (TLP_FRAMING + HDR_3DW) + above * (HDR_4DW - HDR_3DW) + payload;
    s->n += count;
}

/* Adds the one TLP of [addr, end) (below 4 GiB or above, not across). */
static void add_one(tlp_sum *s, uint64_t addr, uint64_t end, bool wide, bool data)
{
    uint64_t hdr = wide && addr >= FOUR_GIB ? HDR_4DW : HDR_3DW;
    s->bytes += TLP_FRAMING + hdr + (data ? dword_bytes(addr, end - addr) : 0);
    s->n++;
}

static uint64_t sum_out(tlp_sum s, uint32_t *tlps)
{
    if (tlps)
        *tlps = s.n > UINT32_MAX ? UINT32_MAX : (uint32_t)s.n;
    return s.bytes;
}

uint64_t mortar_pcie_write_bytes(const mortar_pcie_wire *w, uint64_t addr, uint64_t len,
                                 uint32_t *tlps)
{
    tlp_sum s = {0, 0};
    add_cut(&s, addr, end_of(addr, len), w->mps, true, true);
    return sum_out(s, tlps);
}

uint64_t mortar_pcie_read_request_bytes(const mortar_pcie_wire *w, uint64_t addr,
                                        uint64_t len, uint32_t *tlps)
{
    tlp_sum s = {0, 0};
    add_cut(&s, addr, end_of(addr, len), w->mrrs, true, false);
    return sum_out(s, tlps);
}

/*
 * Completions answer each read request (cut at MRRS) on their own: the
 * first of a request ends at the next RCB boundary when the request does
 * not start on one, the others carry MPS each (a multiple of RCB), the
 * last what is left. Only the first request can start off a boundary (the
 * others start on an MRRS one): it is counted TLP by TLP (at most
 * MRRS / RCB + 1), the rest at once, cut at MPS or MRRS, the smaller.
 */
uint64_t mortar_pcie_completion_bytes(const mortar_pcie_wire *w, uint64_t addr,
                                      uint64_t len, uint32_t *tlps)
{
    tlp_sum s = {0, 0};
    uint64_t end = end_of(addr, len);
    uint64_t first_end = (addr / w->mrrs + 1) * w->mrrs;
    if (first_end > end)
        first_end = end;
    for (uint64_t a = addr; a < first_end;) {
        uint64_t e = a % w->rcb ? (a / w->rcb + 1) * w->rcb : a + w->mps;
        e = e < first_end ? e : first_end;
        add_one(&s, a, e, false, true);
        a = e;
    }
    add_cut(&s, first_end, end, w->mps < w->mrrs ? w->mps : w->mrrs, false, true);
    return sum_out(s, tlps);
}

/* ---- messages ------------------------------------------------------------ */

static void charge(const mortar_pcie_wire *w, uint64_t bytes, uint32_t tlps,
                   uint64_t first_bytes, mortar_pcie_cost *out)
{
    out->bytes = bytes;
    out->tlps = tlps;
    out->wire_ps = mortar_pcie_wire_ps(w, bytes);
    out->first_ps = first_bytes ? mortar_pcie_wire_ps(w, first_bytes) : out->wire_ps;
}

/* A read request of `len` bytes at `addr`: acted on at its first TLP. */
static void charge_read(const mortar_pcie_wire *w, uint64_t addr, uint64_t len,
                        mortar_pcie_cost *out)
{
    uint32_t n;
    uint64_t bytes = mortar_pcie_read_request_bytes(w, addr, len ? len : 1, &n);
    charge(w, bytes, n, TLP_FRAMING + (addr >= FOUR_GIB ? HDR_4DW : HDR_3DW), out);
}

static void charge_write(const mortar_pcie_wire *w, uint64_t addr, uint64_t len,
                         mortar_pcie_cost *out)
{
    uint32_t n;
    uint64_t bytes = mortar_pcie_write_bytes(w, addr, len ? len : 1, &n);
    charge(w, bytes, n, 0, out);
}

/* Completions of `len` bytes from `addr`; none of data: one Cpl. */
static void charge_completion(const mortar_pcie_wire *w, uint64_t addr, uint64_t len,
                              mortar_pcie_cost *out)
{
    uint32_t n = 1;
    uint64_t bytes = len ? mortar_pcie_completion_bytes(w, addr, len, &n)
                         : TLP_FRAMING + HDR_3DW;
    charge(w, bytes, n, 0, out);
}

/* The data a message carries after its fixed part of `fixed` bytes: as
 * many as it says, but no more than it has. */
static uint64_t carried(uint64_t said, uint32_t size, uint32_t fixed)
{
    return said < size - fixed ? said : size - fixed;
}

/* A memory request at `addr`: a read of `len` bytes, or a write of the
 * `len` bytes it says (as many as its message of `size` bytes, `fixed` of
 * them its header, carries). */
static void charge_request(const mortar_pcie_wire *w, bool read, uint64_t addr, uint64_t len,
                           uint32_t size, uint32_t fixed, mortar_pcie_cost *out)
{
    if (read)
        charge_read(w, addr, len, out);
    else
        charge_write(w, addr, carried(len, size, fixed), out);
}

static void cost_host_message(const mortar_pcie_wire *w, uint8_t type, const void *payload,
                              uint32_t size, mortar_pcie_cost *out)
{
    switch (type) {
    case MORTAR_PCIE_MMIO_READ:
    case MORTAR_PCIE_MMIO_WRITE: {
        mortar_pcie_mmio m;
        if (size < sizeof m)
            return;
        memcpy(&m, payload, sizeof m);
        charge_request(w, type == MORTAR_PCIE_MMIO_READ, m.offset, m.size, size, sizeof m, out);
        if (type == MORTAR_PCIE_MMIO_READ)
            out->host_ps = w->mmio_read_host_ps;
        return;
    }
    case MORTAR_PCIE_DMA_READ_DONE: {
        mortar_pcie_dma_done d;
        if (size < sizeof d)
            return;
        memcpy(&d, payload, sizeof d);
        charge_completion(w, d.addr_low, d.status ? 0 : carried(d.size, size, sizeof d), out);
        out->host_ps = w->dma_read_host_ps;
        return;
    }
    }
}

static void cost_device_message(const mortar_pcie_wire *w, uint8_t type,
                                const void *payload, uint32_t size, mortar_pcie_cost *out)
{
    switch (type) {
    case MORTAR_PCIE_DMA_READ:
    case MORTAR_PCIE_DMA_WRITE: {
        mortar_pcie_dma d;
        if (size < sizeof d)
            return;
        memcpy(&d, payload, sizeof d);
        charge_request(w, type == MORTAR_PCIE_DMA_READ, d.addr, d.size, size, sizeof d, out);
        return;
    }
    case MORTAR_PCIE_MMIO_READ_DONE:
    case MORTAR_PCIE_MMIO_WRITE_DONE: {
        mortar_pcie_mmio_done d;
        if (size < sizeof d)
            return;
        memcpy(&d, payload, sizeof d);
        uint64_t len = type == MORTAR_PCIE_MMIO_READ_DONE ? carried(d.size, size, sizeof d) : 0;
        charge_completion(w, 0, len, out);
        return;
    }
    case MORTAR_PCIE_INTERRUPT: {
        mortar_pcie_interrupt in;
        if (size < sizeof in)
            return;
        memcpy(&in, payload, sizeof in);
        if (in.kind == MORTAR_PCIE_INT_MSI || in.kind == MORTAR_PCIE_INT_MSIX)
            charge_write(w, 0, MSI_BYTES, out); /* to 0xfeexxxxx: 32-bit */
        else
            charge(w, TLP_FRAMING + HDR_4DW, 1, 0, out); /* Assert/Deassert_INTx */
        return;
    }
    }
}

bool mortar_pcie_moves_dma_data(uint8_t type)
{
    return type == MORTAR_PCIE_DMA_WRITE || type == MORTAR_PCIE_DMA_READ_DONE;
}

void mortar_pcie_wire_cost(const mortar_pcie_wire *w, uint8_t type, const void *payload,
                           uint32_t size, mortar_pcie_cost *out)
{
    memset(out, 0, sizeof *out);
    if (!w->gen)
        return;
    cost_host_message(w, type, payload, size, out);
    cost_device_message(w, type, payload, size, out);
}

void mortar_pcie_wire_train(mortar_pcie_wire *slot, const mortar_pcie_dev_intro *dev)
{
    if (!slot->gen)
        return;
    if (dev->link_gen && dev->link_gen < slot->gen)
        slot->gen = dev->link_gen;
    if (dev->link_lanes && dev->link_lanes < slot->lanes)
        slot->lanes = dev->link_lanes;
    while (slot->lanes & (slot->lanes - 1)) /* x12 and the like train to the next width down */
        slot->lanes &= (uint8_t)(slot->lanes - 1);
}
