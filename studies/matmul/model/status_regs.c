/*
 * status_regs.c - the status and timing registers that design A and the
 * register-copy variant share (same offsets in both): REQ_ID, STATUS (BUSY,
 * DONE, ERROR, steps of the current request in bits 31:16), STEP_COUNT,
 * ERR_CODE, and the request's timing in ps (first step's compute start,
 * latest step's compute end, compute time so far), which a driver reads
 * after a request to learn the device's own view of it.
 */
#include "model/matmul_internal.h"

bool matmul_status_read(const matmul_status_regs *s, uint32_t offset, uint32_t *value)
{
    switch (offset) {
    case MATMUL_A_REQ_ID:
        *value = s->req_id;
        return true;
    case MATMUL_A_STATUS:
        *value = (s->busy ? MATMUL_STATUS_BUSY : 0) | s->flags | (s->req_steps << 16);
        return true;
    case MATMUL_A_STEP_COUNT:
        *value = s->step_count;
        return true;
    case MATMUL_A_ERR_CODE:
        *value = s->err_code;
        return true;
    }
    return matmul_reg64_read(offset, MATMUL_A_T_FIRST, s->t_first, value) ||
           matmul_reg64_read(offset, MATMUL_A_T_LAST, s->t_last, value) ||
           matmul_reg64_read(offset, MATMUL_A_COMPUTE, s->req_compute, value);
}

bool matmul_status_write(matmul_status_regs *s, uint32_t offset, uint32_t value)
{
    switch (offset) {
    case MATMUL_A_REQ_ID:
        s->req_id = value;
        return true;
    case MATMUL_A_STATUS: /* write 1 to clear DONE / ERROR */
        s->flags &= ~(value & (MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR));
        return true;
    }
    return false;
}

void matmul_status_begin_request(matmul_status_regs *s)
{
    s->req_steps = 0;
    s->timed = false;
    s->t_first = s->t_last = s->req_compute = 0;
}

void matmul_status_step_started(matmul_status_regs *s, uint64_t now)
{
    if (!s->timed) {
        s->t_first = now;
        s->timed = true;
    }
}

void matmul_status_step_ended(matmul_status_regs *s, uint64_t now, uint64_t compute_ps)
{
    s->t_last = now;
    s->req_compute += compute_ps;
    s->req_steps++;
    s->step_count++;
}

void matmul_status_error(matmul_status_regs *s, uint32_t code)
{
    s->flags |= MATMUL_STATUS_ERROR;
    s->err_code = code;
}
