/*
 * matmul_a.c - the design A driver: the CPU runs every tile step across the
 * link (studies/matmul/docs/matmul.md, "Design A"). The sequence is the driver
 * core's (studies/matmul/model/driver_core_a.c), the one `mortar alone` runs over
 * the host stub; this file gives it DMA memory and runs its steps.
 *
 * Operands and result live tiled in one DMA buffer (2 MiB huge pages). Per
 * step: A_ADDR, B_ADDR, C_ADDR (LAST steps only) and STEP_CTRL with posted
 * writes, STEP_CTRL read back (a round trip: the writes have landed), the
 * DOORBELL, then STATUS polled with MMIO reads, each stalling the CPU for a
 * round trip, until DONE or ERROR. REQ_ID is written once per request.
 * STEP_CTRL carries RESULT_I32 on every step when the options ask for the
 * int32 accumulators.
 *
 * submit only starts a request; wait runs its steps for up to the time it
 * is given and returns, so that a caller with other work (the server's
 * network) can come back between steps. A step that fails ends the
 * request: wait reports it done and complete returns the error.
 */
#include <string.h>

#include "matmul_internal.h"

static int a_open(matmul_guest *d)
{
    int rc = matmul_slot_alloc(d, &d->slots[0], false);
    if (rc) {
        return rc;
    }
    rc = mortar_guest_bus_master(d->pci, true);
    if (rc) {
        return matmul_fail(d, rc, "%s", mortar_guest_errmsg(d->pci));
    }
    rc = matmul_core_a_open(&d->core);
    return rc ? matmul_core_failed(d, rc) : 0;
}

static int a_submit(matmul_guest *d, matmul_slot *s, const int8_t *a, const int8_t *b)
{
    matmul_guest_tile_i8(s->n, a, s->a_virt);
    matmul_guest_tile_i8(s->n, b, s->b_virt);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* operands in memory before the doorbell */
    s->t.submit_ns = mortar_guest_now_ns();
    s->next_step = 0;
    s->error = 0;
    d->active = s;
    matmul_core_a_begin(&d->core, s->req_id);
    return 0;
}

static int a_wait(matmul_guest *d, matmul_slot *s, uint64_t timeout_ns)
{
    if (timeout_ns == 0) {
        return 0;
    }
    uint32_t steps = matmul_core_a_steps(s->n);
    /* Each step has its own timeout: a wait as long as that runs to the end
     * without reading the clock between steps. */
    bool to_the_end = timeout_ns >= d->o.timeout_ns;
    uint64_t deadline = to_the_end ? 0 : mortar_guest_now_ns() + timeout_ns;
    for (;;) {
        int rc = matmul_core_a_step(&d->core, s->n, s->next_step++, NULL);
        s->error = rc ? matmul_core_failed(d, rc) : 0;
        if (s->error || s->next_step == steps) {
            s->t.done_ns = mortar_guest_now_ns();
            s->done = true;
            return 1;
        }
        if (!to_the_end && mortar_guest_now_ns() >= deadline) {
            return 0;
        }
    }
}

static int a_complete(matmul_guest *d, matmul_slot *s)
{
    if (s->error) {
        return s->error; /* the message is the failed step's */
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    matmul_guest_untile(s->n, matmul_elem_bytes(d), s->c_virt, s->c);
    return 0;
}

/* The timing registers of the request completed last (regcopy uses it too:
 * the same registers). */
int matmul_device_timing(matmul_guest *d, matmul_guest_timing *t)
{
    matmul_core_timing ct;
    int rc = matmul_core_read_timing(&d->core, &ct);
    if (rc) {
        return matmul_core_failed(d, rc);
    }
    t->dev_compute_ps = ct.compute_ps;
    t->dev_start_ps = ct.start_ps;
    t->dev_end_ps = ct.end_ps;
    t->steps = ct.steps;
    t->dev_timing = true;
    return 0;
}

const matmul_ops matmul_ops_a = {
    .open = a_open,
    .submit = a_submit,
    .wait = a_wait,
    .complete = a_complete,
    .device_timing = matmul_device_timing,
};
