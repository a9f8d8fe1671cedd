/*
 * mmio_bound.c - whether a finished run was bound by MMIO reads (see
 * mmio_bound.h).
 */
#include "mmio_bound.h"

#include "db_query.h"
#include "profile_data.h"

static uint64_t number(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v)
                                                           : 0;
}

static bool host_mmio_bound(json_t *host)
{
    uint64_t reached = number(host, "virtual_time_ps"), start = number(host, "sync_start_ps");
    if (!json_is_true(json_object_get(host, "synchronized")) || reached <= start)
        return false;
    return (double)number(host, "mmio_stall_ps") >= MMIO_BOUND_SHARE * (double)(reached - start);
}

bool mmio_bound_profile(json_t *profile)
{
    size_t i;
    json_t *p;
    json_array_foreach(profile, i, p) {
        json_t *host = json_object_get(p, "host");
        if (json_is_object(host) && host_mmio_bound(host))
            return true;
    }
    return false;
}

bool mmio_bound_run(db_conn *db, int64_t id)
{
    db_run_place place;
    char err[256];
    if (db_run_place_of(db, id, &place, err, sizeof err) != 1 || !place.has_run_dir)
        return false;
    json_t *profile = profile_collect(place.run_dir, err, sizeof err);
    bool bound = profile && mmio_bound_profile(profile);
    json_decref(profile);
    return bound;
}
