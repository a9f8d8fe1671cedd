/*
 * matmul_b.c - the design B driver: one descriptor per request in a ring in
 * host memory (studies/matmul/docs/matmul.md, "Design B"). The ring setup, the
 * descriptor and the record are the driver core's
 * (studies/matmul/model/driver_core_b.c, which `mortar alone` runs over the host
 * stub); this file gives them DMA memory, slots and the wait.
 *
 * DMA memory: per slot (one request in flight) a 2 MiB huge page holding A
 * and B tiled int8 and C tiled (int8, or int32 with the descriptor's
 * MATMUL_DESC_RESULT_I32 flag); one more buffer holds the ring (slots
 * + 1 descriptors of 64 bytes, so the ring never fills) and one 64-byte
 * completion record per slot. A request: operands tiled into the slot, its
 * record cleared, the descriptor written at TAIL, RING_TAIL written once
 * (posted); that is all the link sees from the CPU. The driver sees it done
 * when the record's DONE bit is set in host memory, by polling (no link
 * traffic), or with use_irq after MSI-X vector 0 lands in the guest
 * library's mailbox. The device serves the ring in order and starts the
 * next queued descriptor by itself.
 */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "matmul_internal.h"

/* Set by SIGALRM: the wait's time is up (spin_on_record). */
static volatile sig_atomic_t wait_expired;

static void on_wait_alarm(int sig)
{
    (void)sig;
    wait_expired = 1;
}

/* The record's DONE bit through the slot's pointer: one load per check, so
 * the spin sees the record within a few instructions of its arrival. */
static bool record_done(const matmul_slot *s)
{
    return s->cpl->status & MATMUL_CPL_DONE;
}

static void arm_alarm(uint64_t ns)
{
    struct itimerval t = {
        .it_value = {.tv_sec = (time_t)(ns / 1000000000u),
                     .tv_usec = (suseconds_t)(ns % 1000000000u / 1000u)},
    };
    if (ns && !t.it_value.tv_sec && !t.it_value.tv_usec) {
        t.it_value.tv_usec = 1; /* zero would disarm it */
    }
    setitimer(ITIMER_REAL, &t, NULL);
}

/*
 * Spins on the record until it is done or `timeout_ns` passed. The loop
 * reads two words of memory, the record and wait_expired, and stores
 * nothing: a mortar host recognises it as a pure wait and skips its
 * iterations instead of executing them (docs/hosts.md, "Spinning
 * guests"). The timeout comes from an interval timer's signal, not from a
 * clock read in the loop.
 */
static bool spin_on_record(const matmul_slot *s, uint64_t timeout_ns)
{
    wait_expired = 0;
    arm_alarm(timeout_ns);
    while (!record_done(s) && !wait_expired) {
    }
    arm_alarm(0);
    return record_done(s);
}

/* The alarm sets wait_expired; SA_RESTART keeps it from interrupting the
 * program's other calls. */
static int catch_wait_alarm(matmul_guest *d)
{
    struct sigaction sa = {.sa_handler = on_wait_alarm, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGALRM, &sa, NULL) != 0) {
        return matmul_fail(d, MORTAR_EIO, "sigaction(SIGALRM) failed");
    }
    return 0;
}

static int b_open(matmul_guest *d)
{
    if (!d->o.use_irq && catch_wait_alarm(d) != 0) {
        return MORTAR_EIO;
    }
    for (unsigned i = 0; i < d->nslots; i++) {
        int rc = matmul_slot_alloc(d, &d->slots[i], true);
        if (rc) {
            return rc;
        }
    }
    d->ring_entries = d->nslots + 1;
    size_t ring_bytes = (size_t)d->ring_entries * sizeof(matmul_desc);
    size_t bytes = ring_bytes + (size_t)d->nslots * sizeof(matmul_completion);
    char err[320];
    int rc = mortar_guest_dma_alloc(&d->ring_mem, bytes, 0, err, sizeof err);
    if (rc) {
        return matmul_fail(d, rc, "DMA memory for the ring: %s", err);
    }
    if (!mortar_guest_dma_contiguous(d->ring_mem, 0, bytes)) {
        return matmul_fail(d, MORTAR_ENOMEM, "the ring is not physically contiguous");
    }
    uint8_t *base = mortar_guest_dma_virt(d->ring_mem);
    d->ring_phys = mortar_guest_dma_phys(d->ring_mem, 0);
    d->ring_mem_bytes = bytes;
    for (unsigned i = 0; i < d->nslots; i++) {
        size_t off = ring_bytes + i * sizeof(matmul_completion);
        d->slots[i].cpl = (volatile matmul_completion *)(base + off);
        d->slots[i].cpl_phys = mortar_guest_dma_phys(d->ring_mem, off);
    }
    matmul_core_b_ring_program(&d->core, d->ring_phys, d->ring_entries,
                               d->o.use_irq ? MATMUL_CORE_IRQ_ON : MATMUL_CORE_IRQ_OFF);
    d->tail = 0;
    rc = mortar_guest_bus_master(d->pci, true);
    if (!rc && d->o.use_irq) {
        rc = mortar_guest_irq_setup(d->pci, MORTAR_GUEST_IRQ_MSIX, 1);
    }
    if (rc) {
        return matmul_fail(d, rc, "%s", mortar_guest_errmsg(d->pci));
    }
    rc = matmul_core_b_ring_enable(&d->core);
    return rc ? matmul_core_failed(d, rc) : 0;
}

static void b_close(matmul_guest *d)
{
    if (d->regs && d->ring_mem) {
        matmul_core_b_ring_disable(&d->core);
    }
}

static int b_submit(matmul_guest *d, matmul_slot *s, const int8_t *a, const int8_t *b)
{
    matmul_guest_tile_i8(s->n, a, s->a_virt);
    matmul_guest_tile_i8(s->n, b, s->b_virt);
    s->t.submit_ns = mortar_guest_now_ns();
    matmul_desc desc = matmul_core_b_desc(&d->core, s->req_id, s->a_phys, s->b_phys,
                                          s->c_phys, s->cpl_phys, s->n);
    int rc = matmul_core_b_queue(&d->core, &d->tail, &desc, s->cpl_phys);
    return rc ? matmul_core_failed(d, rc) : 0;
}

static int seen_done(matmul_slot *s)
{
    s->t.done_ns = mortar_guest_now_ns();
    s->done = true;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* record and result read after DONE */
    return 1;
}

static int b_wait(matmul_guest *d, matmul_slot *s, uint64_t timeout_ns)
{
    if (record_done(s)) {
        return seen_done(s);
    }
    if (timeout_ns == 0) {
        return 0;
    }
    if (!d->o.use_irq) {
        return spin_on_record(s, timeout_ns) ? seen_done(s) : 0;
    }
    uint64_t deadline = mortar_guest_now_ns() + timeout_ns;
    for (;;) {
        uint64_t now = mortar_guest_now_ns();
        if (now >= deadline) {
            return record_done(s) ? seen_done(s) : 0;
        }
        /* Messages coalesce and may belong to an earlier request: the record
         * decides. */
        int rc = mortar_guest_irq_wait(d->pci, 0, deadline - now);
        if (rc && rc != MORTAR_ETIMEDOUT) {
            return matmul_fail(d, rc, "%s", mortar_guest_errmsg(d->pci));
        }
        if (record_done(s)) {
            return seen_done(s);
        }
    }
}

static int b_complete(matmul_guest *d, matmul_slot *s)
{
    matmul_core_timing ct;
    int rc = matmul_core_b_finish(&d->core, s->cpl_phys, s->req_id, &ct);
    s->t.dev_accept_ps = ct.accept_ps;
    s->t.dev_start_ps = ct.start_ps;
    s->t.dev_end_ps = ct.end_ps;
    s->t.dev_compute_ps = ct.compute_ps;
    s->t.dev_done_ps = ct.done_ps;
    s->t.steps = ct.steps;
    s->t.dev_timing = true;
    if (rc) {
        return matmul_core_failed(d, rc);
    }
    matmul_guest_untile(s->n, matmul_elem_bytes(d), s->c_virt, s->c);
    return 0;
}

const matmul_ops matmul_ops_b = {
    .open = b_open,
    .close = b_close,
    .submit = b_submit,
    .wait = b_wait,
    .complete = b_complete,
};
