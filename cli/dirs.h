/*
 * dirs.h - creating the directories a command writes into.
 */
#ifndef MORTAR_CLI_DIRS_H
#define MORTAR_CLI_DIRS_H

#include <stddef.h>

/* Creates `dir` and its missing parents, like `mkdir -p`. Returns 0, or -1
 * with the reason in err (size bytes) when a part cannot be created or
 * `dir` exists and is not a directory. */
int dirs_make(const char *dir, char *err, size_t size);

#endif
