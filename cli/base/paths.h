/*
 * paths.h - where the `mortar` command finds its parts: mortar-sim, its data
 * (the explorer's template, the example specs), the source tree and the
 * cache of QEMU builds and guest images. docs/install.md states the rules.
 *
 * Every lookup goes in the same order:
 *   1. an environment variable, when set (MORTAR_BIN, MORTAR_DATA,
 *      MORTAR_WEB_DIR, MORTAR_SOURCE, MORTAR_CACHE);
 *   2. the install layout relative to the running binary
 *      (<prefix>/bin/mortar -> <prefix>/bin/mortar-sim, <prefix>/share/mortar);
 *      a build tree has the same shape (build/bin, build/share/mortar);
 *   3. the source tree three levels above the binary
 *      (<source>/build/bin/mortar), when it is one.
 * Each function writes a path into `out` and returns 0, or returns -1 with
 * `err` saying where it looked and what to set. Nothing here prints.
 */
#ifndef MORTAR_CLI_PATHS_H
#define MORTAR_CLI_PATHS_H

#include <stddef.h>

/* The directory of the running binary (from /proc/self/exe). */
int paths_exe_dir(char *out, size_t size, char *err, size_t err_size);

/* mortar's data directory: $MORTAR_DATA, else <bin>/../share/mortar (the
 * install's data dir relative to its bin dir, as configured with
 * GNUInstallDirs, then the build tree's build/share/mortar). */
int paths_data_dir(char *out, size_t size, char *err, size_t err_size);

/* The explorer's directory (explorer.html): $MORTAR_WEB_DIR, else
 * <data dir>/web. The caller checks for the files it needs there. */
int paths_web_dir(char *out, size_t size, char *err, size_t err_size);

/* The mortar-sim binary: $MORTAR_BIN/mortar-sim, else mortar-sim next to
 * the running binary, else <source>/build/bin/mortar-sim. Succeeds only
 * when the file is executable. */
int paths_sim_bin(char *out, size_t size, char *err, size_t err_size);

/* A program a study names by its bare name (the first word of an alone
 * benchmark's command, "my-device-alone"): $MORTAR_BIN/<name>, else <name> next to the
 * running binary, else the first <name> in a directory of $PATH. A name
 * with a '/' is taken as it is. Succeeds only when the file is executable. */
int paths_program(const char *name, char *out, size_t size, char *err, size_t err_size);

/* The source tree: $MORTAR_SOURCE (taken as it is), else three levels
 * above the binary when that directory holds hosts/qemu/build.sh. */
int paths_source_dir(char *out, size_t size, char *err, size_t err_size);

/* The cache root of QEMU builds and guest images, the rule of
 * hosts/qemu/build.sh and guest/build-image.sh: $MORTAR_CACHE, else
 * $XDG_CACHE_HOME/mortar, else $HOME/.cache/mortar (empty counts as unset).
 * The directory need not exist. */
int paths_cache_dir(char *out, size_t size, char *err, size_t err_size);

#endif
