/*
 * owner.c - a run's owning process, and abandoned runs (see owner.h).
 */
#include "owner.h"

#include <dirent.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"

#define PRIVATE_PARENT "/tmp"
#define PRIVATE_NAME_PREFIX "mortar-run-"
#define PRIVATE_PREFIX PRIVATE_PARENT "/" PRIVATE_NAME_PREFIX

uint64_t owner_start_time(pid_t pid)
{
    char path[64], buf[1024];
    if (pid <= 0)
        return 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* the command name (field 2) is in parentheses and may hold anything:
     * the fields after it start after its last ')' */
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    p++;
    /* field 3 is the first after ')'; the start time is field 22 */
    for (int field = 3; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return 0;
    }
    char *end;
    unsigned long long v = strtoull(p + 1, &end, 10);
    return end == p + 1 ? 0 : (uint64_t)v;
}

bool owner_alive(pid_t pid, uint64_t start)
{
    uint64_t now = owner_start_time(pid);
    /* a start time of 0: it could not be read when the run began */
    return now != 0 && (start == 0 || now == start);
}

bool owner_private_dir_ok(const char *dir)
{
    size_t n = strlen(PRIVATE_PREFIX);
    if (!dir || strncmp(dir, PRIVATE_PREFIX, n) || strlen(dir + n) != 6)
        return false;
    for (const char *c = dir + n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            return false;
    return true;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path); /* what cannot go stays; the walk goes on */
    return 0;
}

static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

void owner_remove_private_dir(const char *dir)
{
    if (owner_private_dir_ok(dir))
        remove_tree(dir);
}

int owner_mark_private_dir(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/owner", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    pid_t me = getpid();
    fprintf(f, "%ld %" PRIu64 "\n", (long)me, owner_start_time(me));
    return fclose(f) == 0 ? 0 : -1;
}

/* Whether the owner named in `dir`/owner is gone; false when the file is
 * missing or malformed. */
static bool private_dir_orphaned(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/owner", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    long pid;
    uint64_t start;
    int n = fscanf(f, "%ld %" SCNu64, &pid, &start);
    fclose(f);
    return n == 2 && pid > 0 && !owner_alive((pid_t)pid, start);
}

int owner_reap_private_dirs(void)
{
    DIR *tmp = opendir(PRIVATE_PARENT);
    if (!tmp)
        return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(tmp)) != NULL) {
        if (strncmp(e->d_name, PRIVATE_NAME_PREFIX, strlen(PRIVATE_NAME_PREFIX)) != 0)
            continue;
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, PRIVATE_PARENT "/%s", e->d_name);
        if (owner_private_dir_ok(dir) && private_dir_orphaned(dir)) {
            remove_tree(dir);
            removed++;
        }
    }
    closedir(tmp);
    return removed;
}

json_t *owner_reap(db_conn *db)
{
    json_t *running = db_running_runs(db);
    if (!running)
        return NULL;
    json_t *out = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(running, i, r) {
        int64_t id = json_integer_value(json_object_get(r, "id"));
        json_int_t pid = json_integer_value(json_object_get(r, "pid"));
        json_int_t start = json_integer_value(json_object_get(r, "pid_start"));
        if (pid <= 0 || owner_alive((pid_t)pid, (uint64_t)start))
            continue;
        char error[160];
        snprintf(error, sizeof error,
                 "abandoned: its mortar process (PID %lld, started at tick %lld) is gone",
                 (long long)pid, (long long)start);
        if (db_abandon_run(db, id, error)) {
            json_decref(running);
            json_decref(out);
            return NULL;
        }
        const char *dir = json_string_value(json_object_get(r, "private_dir"));
        if (owner_private_dir_ok(dir))
            remove_tree(dir);
        json_array_append_new(out, json_pack("{s:I, s:I, s:s}", "id", (json_int_t)id, "pid",
                                             pid, "error", error));
    }
    json_decref(running);
    return out;
}

int owner_reap_and_say(db_conn *db, const char *prefix, char *err, size_t size)
{
    owner_reap_private_dirs();
    json_t *gone = owner_reap(db);
    if (!gone) {
        snprintf(err, size, "%s: marking the abandoned runs: %s", db_file_name(db),
                 db_last_error());
        return -1;
    }
    size_t i;
    json_t *r;
    json_array_foreach(gone, i, r)
        fprintf(stderr, "%s run %lld %s\n", prefix,
                (long long)json_integer_value(json_object_get(r, "id")),
                json_string_value(json_object_get(r, "error")));
    json_decref(gone);
    return 0;
}
