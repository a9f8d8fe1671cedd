/*
 * event_heap.c - the loop's priority queue: a binary min-heap of events
 * ordered by time, then component, class (messages before timers), port and
 * sequence, and the events' payloads (inline when small). The order is
 * total, so the loop's behaviour never depends on which process happened to
 * run first.
 */
#include "loop_internal.h"

#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"

/* Without branches: event times are as good as random, and a mispredicted
 * branch per comparison cost more than the comparison itself. */
static inline bool before(const event *a, const event *b)
{
    bool seq_lt = a->seq < b->seq;
    bool order_lt = (a->order < b->order) | ((a->order == b->order) & seq_lt);
    return (a->time < b->time) | ((a->time == b->time) & order_lt);
}

int event_set_payload(event *ev, const void *payload, uint32_t size)
{
    ev->msg.size = size;
    ev->msg.data = NULL;
    if (size <= EVENT_INLINE_BYTES) {
        if (size)
            memcpy(ev->msg.small, payload, size);
        return MORTAR_OK;
    }
    ev->msg.data = malloc(size);
    if (!ev->msg.data)
        return MORTAR_ENOMEM;
    memcpy(ev->msg.data, payload, size);
    return MORTAR_OK;
}

void event_free_payload(event *ev)
{
    free(ev->msg.data);
    ev->msg.data = NULL;
}

int heap_push(event_heap *h, const event *ev)
{
    if (h->count == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 256;
        event *items = realloc(h->items, cap * sizeof *items);
        if (!items)
            return MORTAR_ENOMEM;
        h->items = items;
        h->cap = cap;
    }
    size_t i = h->count++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(ev, &h->items[parent]))
            break;
        h->items[i] = h->items[parent];
        i = parent;
    }
    h->items[i] = *ev;
    return MORTAR_OK;
}

/* Floyd's variant: the hole at the root goes down to a leaf along the
 * smaller children (a loop whose length is the heap's depth, which the CPU
 * predicts), then the last item rises from there (rarely more than a step).
 * The textbook sift-down ends on a comparison that is as good as random. */
void heap_pop(event_heap *h, event *out)
{
    *out = h->items[0];
    size_t n = --h->count;
    if (n == 0)
        return;
    event *items = h->items;
    size_t i = 0;
    for (size_t child = 1; child < n; child = 2 * i + 1) {
        if (child + 1 < n)
            child += before(&items[child + 1], &items[child]);
        items[i] = items[child];
        i = child;
    }
    const event *last = &items[n];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(last, &items[parent]))
            break;
        items[i] = items[parent];
        i = parent;
    }
    items[i] = *last;
}

void heap_free(event_heap *h)
{
    for (size_t i = 0; i < h->count; i++)
        if (event_class(&h->items[i]) == EV_MESSAGE)
            event_free_payload(&h->items[i]);
    free(h->items);
    h->items = NULL;
    h->count = h->cap = 0;
}
