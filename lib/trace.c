/*
 * trace.c - writing and reading compact binary trace files.
 *
 * File: a 16-byte header ("MTRC", version, reserved), then records. Each
 * record starts with a one-byte tag: 'N' declares a name (u8 space: 'C'
 * component or 'K' kind, u16 id, u16 length, bytes), 'E' carries one
 * 40-byte mortar_trace_event. Writing goes through stdio's buffer.
 */
#include "mortar/trace.h"
#include "mortar/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 4096

struct mortar_trace_writer {
    FILE *f;
    uint16_t components, kinds;
    char *kind_names[MAX_NAMES];
    int failed;
};

int mortar_trace_writer_open(mortar_trace_writer **out, const char *path)
{
    *out = NULL;
    mortar_trace_writer *w = calloc(1, sizeof *w);
    if (!w)
        return MORTAR_ENOMEM;
    w->f = fopen(path, "wb");
    if (!w->f) {
        free(w);
        return MORTAR_EIO;
    }
    setvbuf(w->f, NULL, _IOFBF, 1 << 20);
    uint32_t header[4] = {MORTAR_TRACE_MAGIC, MORTAR_TRACE_VERSION, 0, 0};
    fwrite(header, sizeof header, 1, w->f);
    *out = w;
    return MORTAR_OK;
}

static void write_name(mortar_trace_writer *w, char space, uint16_t id, const char *name)
{
    uint16_t len = (uint16_t)strnlen(name, 255);
    fputc('N', w->f);
    fputc(space, w->f);
    fwrite(&id, 2, 1, w->f);
    fwrite(&len, 2, 1, w->f);
    fwrite(name, 1, len, w->f);
}

uint16_t mortar_trace_writer_component(mortar_trace_writer *w, const char *name)
{
    uint16_t id = w->components++;
    write_name(w, 'C', id, name);
    return id;
}

uint16_t mortar_trace_writer_kind(mortar_trace_writer *w, const char *name)
{
    for (uint16_t i = 0; i < w->kinds; i++)
        if (strcmp(w->kind_names[i], name) == 0)
            return i;
    if (w->kinds >= MAX_NAMES)
        return MAX_NAMES - 1;
    uint16_t id = w->kinds++;
    w->kind_names[id] = strdup(name);
    write_name(w, 'K', id, name);
    return id;
}

void mortar_trace_writer_event(mortar_trace_writer *w, const mortar_trace_event *ev)
{
    fputc('E', w->f);
    if (fwrite(ev, sizeof *ev, 1, w->f) != 1)
        w->failed = 1;
}

int mortar_trace_writer_close(mortar_trace_writer *w)
{
    if (!w)
        return MORTAR_OK;
    int rc = (fclose(w->f) != 0 || w->failed) ? MORTAR_EIO : MORTAR_OK;
    for (uint16_t i = 0; i < w->kinds; i++)
        free(w->kind_names[i]);
    free(w);
    return rc;
}

/* ---- reader ---------------------------------------------------------------- */

struct mortar_trace_reader {
    FILE *f;
    char *names[2][MAX_NAMES]; /* [0] components, [1] kinds */
};

int mortar_trace_reader_open(mortar_trace_reader **out, const char *path, char *err,
                             size_t err_size)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    uint32_t header[4];
    if (!f || fread(header, sizeof header, 1, f) != 1 || header[0] != MORTAR_TRACE_MAGIC ||
        header[1] != MORTAR_TRACE_VERSION) {
        if (err)
            snprintf(err, err_size, "%s: %s", path, f ? "not a mortar trace file (v1)" : "cannot open");
        if (f)
            fclose(f);
        return f ? MORTAR_EPROTO : MORTAR_EIO;
    }
    mortar_trace_reader *r = calloc(1, sizeof *r);
    if (!r) {
        fclose(f);
        return MORTAR_ENOMEM;
    }
    r->f = f;
    *out = r;
    return MORTAR_OK;
}

static int read_name(mortar_trace_reader *r)
{
    int space = fgetc(r->f);
    uint16_t id, len;
    char buf[256];
    if (space == EOF || fread(&id, 2, 1, r->f) != 1 || fread(&len, 2, 1, r->f) != 1 ||
        len > 255 || fread(buf, 1, len, r->f) != len || id >= MAX_NAMES)
        return MORTAR_EPROTO;
    buf[len] = '\0';
    char **slot = &r->names[space == 'K'][id];
    free(*slot);
    *slot = strdup(buf);
    return MORTAR_OK;
}

int mortar_trace_reader_next(mortar_trace_reader *r, mortar_trace_event *ev)
{
    for (;;) {
        int tag = fgetc(r->f);
        if (tag == EOF)
            return 0;
        if (tag == 'E')
            return fread(ev, sizeof *ev, 1, r->f) == 1 ? 1 : MORTAR_EPROTO;
        if (tag != 'N' || read_name(r) != 0)
            return MORTAR_EPROTO;
    }
}

const char *mortar_trace_reader_component(const mortar_trace_reader *r, uint16_t id)
{
    return (id < MAX_NAMES && r->names[0][id]) ? r->names[0][id] : "?";
}

const char *mortar_trace_reader_kind(const mortar_trace_reader *r, uint16_t id)
{
    return (id < MAX_NAMES && r->names[1][id]) ? r->names[1][id] : "?";
}

void mortar_trace_reader_close(mortar_trace_reader *r)
{
    if (!r)
        return;
    fclose(r->f);
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < MAX_NAMES; i++)
            free(r->names[s][i]);
    free(r);
}
