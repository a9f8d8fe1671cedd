/*
 * event_heap.c - the loop's priority queue: a binary min-heap of events
 * ordered by time, then component, class (messages before timers), port and
 * sequence. The order is total, so the loop's behaviour never depends on
 * which process happened to run first.
 */
#include "loop_internal.h"

#include <stdlib.h>

#include "mortar/error.h"

static inline bool before(const event *a, const event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    if (a->comp != b->comp)
        return a->comp < b->comp;
    if (a->cls != b->cls)
        return a->cls < b->cls;
    if (a->port != b->port)
        return a->port < b->port;
    return a->seq < b->seq;
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

void heap_pop(event_heap *h, event *out)
{
    *out = h->items[0];
    event last = h->items[--h->count];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->count)
            break;
        if (child + 1 < h->count && before(&h->items[child + 1], &h->items[child]))
            child++;
        if (!before(&h->items[child], &last))
            break;
        h->items[i] = h->items[child];
        i = child;
    }
    if (h->count > 0)
        h->items[i] = last;
}

void heap_free(event_heap *h)
{
    for (size_t i = 0; i < h->count; i++)
        if (h->items[i].cls == EV_MESSAGE)
            free(h->items[i].msg.data);
    free(h->items);
    h->items = NULL;
    h->count = h->cap = 0;
}
