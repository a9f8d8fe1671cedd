/*
 * owner.h - which process owns a run: its PID and its start time (field 22
 * of /proc/<pid>/stat, in clock ticks since boot), so that a PID the kernel
 * has given to another process since is not taken for the owner. A run
 * whose owner is gone (killed with SIGKILL, its terminal closed) is marked
 * "abandoned" by the next `mortar run` or `mortar sweep`, and its private
 * directory under /tmp is removed.
 */
#ifndef MORTAR_CLI_OWNER_H
#define MORTAR_CLI_OWNER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "db.h"

/* The start time of process `pid`; 0 when there is no such process. */
uint64_t owner_start_time(pid_t pid);

/* Whether process `pid` still runs and is the one that started at `start`. */
bool owner_alive(pid_t pid, uint64_t start);

/* Whether `dir` has the form of a run's private directory
 * (/tmp/mortar-run-XXXXXX), the only directories owner_reap removes. */
bool owner_private_dir_ok(const char *dir);

/* Writes our PID and start time into the private directory `dir` (a file
 * "owner"), so that owner_reap_private_dirs can tell when it is left over. */
int owner_mark_private_dir(const char *dir);

/* Removes the private directory `dir` and all it holds (nothing if `dir`
 * is not of that form). */
void owner_remove_private_dir(const char *dir);

/* Removes every private directory under /tmp whose "owner" file names a
 * process that is gone: a run killed outright leaves its directory, and a
 * run that built snapshots a second one, which no database records.
 * Directories without that file (being set up, or older) stay. Returns how
 * many it removed. */
int owner_reap_private_dirs(void);

/* Marks every "running" run of `db` whose owner is gone "abandoned" (the
 * error names its PID and start time) and removes its private directory.
 * Returns the runs marked, a new array of {"id", "pid", "error"}; NULL
 * when the database fails (see db_last_error). */
json_t *owner_reap(db_conn *db);

/* owner_reap_private_dirs and owner_reap, then one line on stderr per run
 * marked: "<prefix> run N <error>". 0, or -1 with the database's file and
 * problem in `err`. */
int owner_reap_and_say(db_conn *db, const char *prefix, char *err, size_t size);

#endif
