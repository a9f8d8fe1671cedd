/*
 * snapshot_id.c - the identity of a booted-guest snapshot (see
 * snapshot_id.h).
 */
#include "snapshot_id.h"

#include <stdio.h>
#include <string.h>

#define VM_SUFFIX ".vm"
#define ID_SUFFIX ".sha256"
#define RAM_SUFFIX ".ram"

/* `vm` with its .vm suffix (if any) replaced by `suffix`. */
static void beside(const char *vm, const char *suffix, char *out, size_t size)
{
    size_t n = strlen(vm), s = strlen(VM_SUFFIX);
    if (n >= s && !strcmp(vm + n - s, VM_SUFFIX))
        n -= s;
    snprintf(out, size, "%.*s%s", (int)n, vm, suffix);
}

void snapshot_id_path(const char *vm, char *out, size_t size)
{
    beside(vm, ID_SUFFIX, out, size);
}

void snapshot_ram_path(const char *vm, char *out, size_t size)
{
    beside(vm, RAM_SUFFIX, out, size);
}

int snapshot_id_read(const char *path, char id[SNAPSHOT_ID_HEX + 1])
{
    char text[SNAPSHOT_ID_HEX + 3] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    if (n != SNAPSHOT_ID_HEX + 1 || text[SNAPSHOT_ID_HEX] != '\n' ||
        strspn(text, "0123456789abcdef") != SNAPSHOT_ID_HEX)
        return -1;
    memcpy(id, text, SNAPSHOT_ID_HEX);
    id[SNAPSHOT_ID_HEX] = '\0';
    return 0;
}

int snapshot_id_of(const char *vm, char id[SNAPSHOT_ID_HEX + 1])
{
    char path[4096];
    snapshot_id_path(vm, path, sizeof path);
    return snapshot_id_read(path, id);
}
