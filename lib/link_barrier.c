/*
 * link_barrier.c - the fence a producer no longer issues per message,
 * issued by its consumer, rarely, before it sleeps.
 *
 * Waking a sleeping consumer needs a store-then-load order on both sides
 * (docs/protocol.md §2, "Waking a sleeping consumer"): the producer stores
 * its slot and reads `waiting`; the consumer stores `waiting` and reads the
 * slot. A fence on each side per message costs the producer a wait for the
 * slot's cache line every time. Linux's membarrier(2) moves the producer's
 * half to the consumer: a process registered for
 * MEMBARRIER_CMD_GLOBAL_EXPEDITED lets any process run a full barrier on
 * all of its running threads. A registered producer then publishes with a
 * release store and a plain read of `waiting`, and a consumer that issues
 * that barrier between its store of `waiting` and its last look at the slot
 * still sees the slot or is seen waiting. Consumers sleep rarely (after
 * spinning and yielding), so the barrier is cheap where it is paid.
 *
 * Registration is per process (a forked child registers again); without
 * the system call (another kernel, a seccomp filter) both sides keep the
 * fences.
 */
#include "link_internal.h"

#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

static long membarrier(int cmd)
{
#ifdef SYS_membarrier
    return syscall(SYS_membarrier, cmd, 0, 0);
#else
    (void)cmd;
    return -1;
#endif
}

/* The pid that registered (0: none yet). */
static _Atomic long registered_pid;

bool link_barrier_register(void)
{
    long me = (long)getpid();
    if (atomic_load_explicit(&registered_pid, memory_order_acquire) == me)
        return true;
    long query = membarrier(MEMBARRIER_CMD_QUERY);
    if (query < 0 || !(query & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) ||
        membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) != 0)
        return false;
    atomic_store_explicit(&registered_pid, me, memory_order_release);
    return true;
}

bool link_barrier_available(void)
{
    long query = membarrier(MEMBARRIER_CMD_QUERY);
    return query >= 0 && (query & MEMBARRIER_CMD_GLOBAL_EXPEDITED);
}

bool link_barrier_issue(void)
{
    return membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0;
}
