/*
 * dirs.h - creating the directories a command writes into, and new files
 * in them: a run writes only inside its own new directory, never over an
 * existing file and never through a symbolic link.
 */
#ifndef MORTAR_CLI_DIRS_H
#define MORTAR_CLI_DIRS_H

#include <jansson.h>
#include <stddef.h>

/* Creates `dir` and its missing parents, like `mkdir -p`. Returns 0, or -1
 * with the reason in err (size bytes) when a part cannot be created or
 * `dir` exists and is not a directory. */
int dirs_make(const char *dir, char *err, size_t size);

/* Creates a new directory <parent>/<base>, or, when that exists, the first
 * free <parent>/<base>-<n> (n = 2, 3, ...): run ids count per database, so
 * an output folder shared by two databases can already hold a name. The
 * path made is left in `dir` (size bytes). Returns 0, or -1 with the reason
 * in err (err_size bytes). */
int dirs_make_fresh(const char *parent, const char *base, char *dir, size_t size, char *err,
                    size_t err_size);

/* Writes `json` (indented) to `path`, a new file: O_EXCL | O_NOFOLLOW.
 * Returns 0, or -1 when the file exists, is a link or cannot be written. */
int dirs_write_new_json(json_t *json, const char *path);

/*
 * Opens directory `name` of the directory open as `at` (AT_FDCWD: the
 * current one) itself, never a symbolic link in its place (O_DIRECTORY |
 * O_NOFOLLOW): a file descriptor, or -1 with the reason naming `shown` in
 * err ("OUT/traces is a symbolic link: not writing through it").
 */
int dirs_open_at(int at, const char *name, const char *shown, char *err, size_t size);

/*
 * Replaces file `name` in the directory open as `dirfd` (dirs_open) with
 * `len` bytes of `data`, so that a reader never sees half of it and nothing
 * is written through a link: the bytes go to a new temporary file in that
 * directory (O_CREAT | O_EXCL | O_NOFOLLOW, a link or file already at its
 * name removed first, never followed), which is then renamed over `name`
 * (a link at `name` is replaced, its target untouched). Returns 0, or -1
 * with the reason naming `shown` (how the caller names the file) in err.
 */
int dirs_replace_file(int dirfd, const char *name, const char *shown, const void *data,
                      size_t len, char *err, size_t size);

/* Below this many free bytes a file system counts as full: a process
 * writing its log or trace there has likely failed with ENOSPC, and may
 * have had no room left to say so. */
#define DIRS_FULL_BYTES (1024 * 1024)

/*
 * When the file system holding `dir` is full (under DIRS_FULL_BYTES free,
 * or no free inode), says so in `note` ("the file system holding DIR is
 * full: No space left on device (12 KiB free)") and returns 1; else
 * returns 0 with `note` empty.
 */
int dirs_full_note(const char *dir, char *note, size_t size);

/* The whole file at `path`: a NUL-terminated buffer of *len bytes that the
 * caller frees, or NULL with `err` naming the file and the problem. */
char *dirs_read_file(const char *path, size_t *len, char *err, size_t err_size);

#endif
