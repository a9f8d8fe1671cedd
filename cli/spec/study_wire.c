/*
 * study_wire.c - a study's protocol, read from its study file and written
 * as a Wireshark dissector (see study_wire.h).
 */
#include "study_wire.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"

/* ---- reading --------------------------------------------------------------- */

/* A lower-case identifier of 1 to STUDY_WIRE_NAME_MAX characters. */
static bool is_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > STUDY_WIRE_NAME_MAX || !(islower((unsigned char)s[0]) || s[0] == '_'))
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

static int check_keys(json_t *obj, const char *at, const char *const allowed[], char *err,
                      size_t size)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        size_t k = 0;
        while (allowed[k] && strcmp(allowed[k], key))
            k++;
        if (!allowed[k])
            return errbuf_fail(err, size, "%s%s: not a key of it", at, key);
    }
    return 0;
}

/* An integer member in [lo, hi]. */
static int read_uint(json_t *obj, const char *key, const char *at, unsigned lo, unsigned hi,
                     unsigned *out, char *err, size_t size)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return errbuf_fail(err, size, "%s%s: expected an integer from %u to %u", at, key, lo,
                           hi);
    *out = (unsigned)json_integer_value(v);
    return 0;
}

/* A text member of at most `max` characters, no control characters. */
static int read_text(json_t *obj, const char *key, const char *at, size_t max, char *out,
                     char *err, size_t size)
{
    const char *s = json_string_value(json_object_get(obj, key));
    if (!s || !*s || strlen(s) > max)
        return errbuf_fail(err, size, "%s%s: expected a text of 1 to %zu characters", at, key,
                           max);
    for (const char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return errbuf_fail(err, size, "%s%s: a control character", at, key);
    strcpy(out, s);
    return 0;
}

static int read_name(json_t *obj, const char *at, char *out, char *err, size_t size)
{
    const char *s = json_string_value(json_object_get(obj, "name"));
    if (!s || !is_name(s))
        return errbuf_fail(err, size,
                           "%sname: expected a lower-case identifier of 1 to %d characters "
                           "(a-z, 0-9, _)",
                           at, STUDY_WIRE_NAME_MAX);
    strcpy(out, s);
    return 0;
}

/* "values": {"<decimal>": "name"}. */
static int read_values(json_t *jv, const char *at, study_wire_field *f, char *err, size_t size)
{
    if (!json_is_object(jv) || json_object_size(jv) > STUDY_WIRE_MAX_VALUES)
        return errbuf_fail(err, size, "%svalues: expected an object of at most %d names", at,
                           STUDY_WIRE_MAX_VALUES);
    unsigned long long max = f->bytes == 8 ? UINT64_MAX : (1ull << (8 * f->bytes)) - 1;
    const char *key;
    json_t *name;
    json_object_foreach(jv, key, name) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(key, &end, 10);
        if (!isdigit((unsigned char)key[0]) || *end || errno || v > max)
            return errbuf_fail(err, size, "%svalues: \"%.40s\": expected a value of %u bytes",
                               at, key, f->bytes);
        study_wire_value *out = &f->values[f->nvalues++];
        out->value = v;
        char where[160];
        snprintf(where, sizeof where, "%svalues.", at);
        if (read_text(jv, key, where, STUDY_WIRE_TEXT_MAX, out->name, err, size))
            return -1;
    }
    return 0;
}

static int read_field(json_t *jf, const char *at, unsigned header_bytes, study_wire_field *f,
                      char *err, size_t size)
{
    static const char *const keys[] = {"name", "offset", "bytes", "values", NULL};
    if (!json_is_object(jf))
        return errbuf_fail(err, size, "%.*s: expected an object", (int)strlen(at) - 1, at);
    if (check_keys(jf, at, keys, err, size) || read_name(jf, at, f->name, err, size) ||
        read_uint(jf, "bytes", at, 1, 8, &f->bytes, err, size) ||
        read_uint(jf, "offset", at, 0, header_bytes, &f->offset, err, size))
        return -1;
    if (f->bytes != 1 && f->bytes != 2 && f->bytes != 4 && f->bytes != 8)
        return errbuf_fail(err, size, "%sbytes: expected 1, 2, 4 or 8", at);
    if (f->offset + f->bytes > header_bytes)
        return errbuf_fail(err, size, "%soffset: the field ends past the header (%u bytes)", at,
                           header_bytes);
    json_t *jv = json_object_get(jf, "values");
    if (jv && f->bytes > 4) /* Wireshark names values of up to 32 bits */
        return errbuf_fail(err, size, "%svalues: only for a field of at most 4 bytes", at);
    return jv ? read_values(jv, at, f, err, size) : 0;
}

static int find_field(const study_wire_message *m, const char *name)
{
    for (size_t i = 0; i < m->nfields; i++)
        if (!strcmp(m->fields[i].name, name))
            return (int)i;
    return -1;
}

static int read_fields(json_t *jm, const char *at, study_wire_message *m, char *err,
                       size_t size)
{
    json_t *jfields = json_object_get(jm, "fields"), *jf;
    if (!json_is_array(jfields) || json_array_size(jfields) > STUDY_WIRE_MAX_FIELDS)
        return errbuf_fail(err, size, "%sfields: expected an array of at most %d fields", at,
                           STUDY_WIRE_MAX_FIELDS);
    size_t i;
    json_array_foreach(jfields, i, jf) {
        char where[128];
        snprintf(where, sizeof where, "%sfields[%zu].", at, i);
        study_wire_field *f = &m->fields[m->nfields];
        if (read_field(jf, where, m->header_bytes, f, err, size))
            return -1;
        if (find_field(m, f->name) >= 0)
            return errbuf_fail(err, size, "%sname: \"%s\" twice", where, f->name);
        m->nfields++;
    }
    return 0;
}

static int read_message(json_t *jm, const char *at, study_wire_message *m, char *err,
                        size_t size)
{
    static const char *const keys[] = {"name", "magic", "header_bytes", "payload_bytes",
                                       "fields", NULL};
    if (!json_is_object(jm))
        return errbuf_fail(err, size, "%.*s: expected an object", (int)strlen(at) - 1, at);
    m->payload_field = -1;
    if (check_keys(jm, at, keys, err, size) || read_name(jm, at, m->name, err, size) ||
        read_uint(jm, "header_bytes", at, 1, 65535, &m->header_bytes, err, size))
        return -1;
    const char *magic = json_string_value(json_object_get(jm, "magic"));
    size_t n = magic ? strlen(magic) : 0;
    if (n == 0 || n > STUDY_WIRE_MAGIC_MAX || n > m->header_bytes ||
        strspn(magic, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") != n)
        return errbuf_fail(err, size,
                           "%smagic: expected 1 to %d letters or digits, within the header",
                           at, STUDY_WIRE_MAGIC_MAX);
    strcpy(m->magic, magic);
    if (read_fields(jm, at, m, err, size))
        return -1;
    json_t *jp = json_object_get(jm, "payload_bytes");
    if (!jp)
        return 0;
    m->payload_field = json_is_string(jp) ? find_field(m, json_string_value(jp)) : -1;
    if (m->payload_field < 0)
        return errbuf_fail(err, size, "%spayload_bytes: expected the name of one of its fields",
                           at);
    return 0;
}

/* No message's magic may be the start of another's: the first bytes
 * decide which message follows. */
static int check_magics_apart(const study_wire *w, char *err, size_t size)
{
    for (size_t i = 0; i < w->nmessages; i++)
        for (size_t j = 0; j < w->nmessages; j++) {
            const char *a = w->messages[i].magic, *b = w->messages[j].magic;
            if (i != j && !strncmp(a, b, strlen(a)))
                return errbuf_fail(err, size,
                                   "messages[%zu].magic: \"%s\" starts messages[%zu]'s too", i,
                                   a, j);
        }
    return 0;
}

int study_wire_read(json_t *jw, study_wire *out, char *err, size_t err_size)
{
    static const char *const keys[] = {"title", "tcp_port", "byte_order", "messages", NULL};
    memset(out, 0, sizeof *out);
    if (!json_is_object(jw))
        return errbuf_fail(err, err_size, "expected an object");
    if (check_keys(jw, "", keys, err, err_size) ||
        read_text(jw, "title", "", STUDY_WIRE_TEXT_MAX, out->title, err, err_size) ||
        read_uint(jw, "tcp_port", "", 1, 65535, &out->tcp_port, err, err_size))
        return -1;
    const char *order = json_string_value(json_object_get(jw, "byte_order"));
    if (!order || (strcmp(order, "little") && strcmp(order, "big")))
        return errbuf_fail(err, err_size, "byte_order: expected \"little\" or \"big\"");
    out->big_endian = !strcmp(order, "big");
    json_t *jmessages = json_object_get(jw, "messages"), *jm;
    if (!json_is_array(jmessages) || json_array_size(jmessages) == 0 ||
        json_array_size(jmessages) > STUDY_WIRE_MAX_MESSAGES)
        return errbuf_fail(err, err_size, "messages: expected an array of 1 to %d messages",
                           STUDY_WIRE_MAX_MESSAGES);
    size_t i;
    json_array_foreach(jmessages, i, jm) {
        char where[64];
        snprintf(where, sizeof where, "messages[%zu].", i);
        study_wire_message *m = &out->messages[out->nmessages];
        if (read_message(jm, where, m, err, err_size))
            return -1;
        for (size_t k = 0; k < out->nmessages; k++)
            if (!strcmp(out->messages[k].name, m->name))
                return errbuf_fail(err, err_size, "%sname: \"%s\" twice", where, m->name);
        out->nmessages++;
    }
    if (check_magics_apart(out, err, err_size))
        return -1;
    return 0;
}

/* ---- the dissector ------------------------------------------------------------ */

/* `s` as a Lua string literal. */
static void lua_quote(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(f, "\\%03u", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

/* The dissector's protocol name: "mortar_" and the study's name with
 * anything but a-z, 0-9 and _ as _. */
static void proto_name(const char *study_name, char *out, size_t size)
{
    int n = snprintf(out, size, "mortar_");
    for (const char *c = study_name; *c && (size_t)n + 1 < size; c++)
        out[n++] = isalnum((unsigned char)*c) ? (char)tolower((unsigned char)*c) : '_';
    out[n] = '\0';
}

static void lua_field(FILE *f, const char *proto, const study_wire_message *m,
                      const study_wire_field *fd)
{
    char abbr[200];
    snprintf(abbr, sizeof abbr, "%s.%s.%s", proto, m->name, fd->name);
    fprintf(f, "      { offset = %u, bytes = %u, field = ProtoField.uint%u(", fd->offset,
            fd->bytes, 8 * fd->bytes);
    lua_quote(f, abbr);
    fprintf(f, ", ");
    lua_quote(f, fd->name);
    fprintf(f, ", base.DEC");
    if (fd->nvalues) {
        fprintf(f, ", {");
        for (size_t v = 0; v < fd->nvalues; v++) {
            fprintf(f, "%s[%llu] = ", v ? ", " : " ", fd->values[v].value);
            lua_quote(f, fd->values[v].name);
        }
        fprintf(f, " }");
    }
    fprintf(f, ") },\n");
}

static void lua_messages(FILE *f, const char *proto, const study_wire *w)
{
    fprintf(f, "local messages = {\n");
    for (size_t i = 0; i < w->nmessages; i++) {
        const study_wire_message *m = &w->messages[i];
        fprintf(f, "  { name = ");
        lua_quote(f, m->name);
        fprintf(f, ", magic = ");
        lua_quote(f, m->magic);
        fprintf(f, ", header = %u,\n", m->header_bytes);
        if (m->payload_field >= 0)
            fprintf(f, "    payload = %d,\n", m->payload_field + 1);
        fprintf(f, "    fields = {\n");
        for (size_t k = 0; k < m->nfields; k++)
            lua_field(f, proto, m, &m->fields[k]);
        fprintf(f, "    } },\n");
    }
    fprintf(f, "}\n\n");
}

/* The part that is the same for every study: reassembly over TCP and
 * the tree, driven by the table above. */
static const char lua_body[] =
    "-- Each message is a field too (\"<protocol>.request\"), for filters.\n"
    "local list = {}\n"
    "for _, m in ipairs(messages) do\n"
    "  m.item = ProtoField.none(PROTOCOL .. \".\" .. m.name, m.name)\n"
    "  list[#list + 1] = m.item\n"
    "  for _, f in ipairs(m.fields) do list[#list + 1] = f.field end\n"
    "end\n"
    "proto.fields = list\n"
    "\n"
    "-- Messages longer than this are not this protocol's (a length field\n"
    "-- read from other bytes): left to TCP rather than waited for.\n"
    "local MAX_MESSAGE = 1073741824\n"
    "\n"
    "local function uint(range)\n"
    "  if range:len() == 8 then return UINT64(range):tonumber() end\n"
    "  return UINT(range)\n"
    "end\n"
    "\n"
    "-- The message starting at `offset`, \"more\" when the bytes there are\n"
    "-- the start of a magic, nil when they are none.\n"
    "local function which(tvb, offset)\n"
    "  local avail = tvb:len() - offset\n"
    "  for _, m in ipairs(messages) do\n"
    "    local n = math.min(#m.magic, avail)\n"
    "    if tvb(offset, n):string() == m.magic:sub(1, n) then\n"
    "      if n < #m.magic then return \"more\" end\n"
    "      return m\n"
    "    end\n"
    "  end\n"
    "  return nil\n"
    "end\n"
    "\n"
    "local function need_more(pinfo, offset, bytes)\n"
    "  pinfo.desegment_offset = offset\n"
    "  pinfo.desegment_len = bytes\n"
    "end\n"
    "\n"
    "function proto.dissector(tvb, pinfo, tree)\n"
    "  local offset, total, seen = 0, tvb:len(), {}\n"
    "  while offset < total do\n"
    "    local m = which(tvb, offset)\n"
    "    if m == nil then break end\n"
    "    if m == \"more\" or total - offset < m.header then\n"
    "      need_more(pinfo, offset, DESEGMENT_ONE_MORE_SEGMENT)\n"
    "      return total\n"
    "    end\n"
    "    local length = m.header\n"
    "    if m.payload then\n"
    "      local p = m.fields[m.payload]\n"
    "      length = length + uint(tvb(offset + p.offset, p.bytes))\n"
    "    end\n"
    "    if length > MAX_MESSAGE then break end\n"
    "    if total - offset < length then\n"
    "      need_more(pinfo, offset, length - (total - offset))\n"
    "      return total\n"
    "    end\n"
    "    local range = tvb(offset, length)\n"
    "    local item = tree:add(proto, range):add(m.item, range)\n"
    "    for _, f in ipairs(m.fields) do\n"
    "      item:ADD(f.field, tvb(offset + f.offset, f.bytes))\n"
    "    end\n"
    "    seen[#seen + 1] = m.name\n"
    "    offset = offset + length\n"
    "  end\n"
    "  if offset == 0 then return 0 end\n"
    "  pinfo.cols.protocol = PROTOCOL\n"
    "  pinfo.cols.info:set(table.concat(seen, \", \"))\n"
    "  return offset\n"
    "end\n"
    "\n";

int study_wire_lua(FILE *f, const char *study_name, const study_wire *w)
{
    char proto[64];
    proto_name(study_name, proto, sizeof proto);
    fprintf(f,
            "-- A Wireshark dissector for the protocol of the mortar study %s\n"
            "-- (filter: %s), generated by `mortar dissector` from the study\n"
            "-- file's \"wire\". Load it with tshark -X lua_script:<this file>, or\n"
            "-- copy it into ~/.local/lib/wireshark/plugins/ (docs/traces.md).\n\n",
            proto + strlen("mortar_"), proto);
    fprintf(f, "local PROTOCOL = ");
    lua_quote(f, proto);
    fprintf(f, "\nlocal TITLE = ");
    lua_quote(f, w->title);
    fprintf(f, "\nlocal proto = Proto(PROTOCOL, TITLE)\n");
    fprintf(f, "local UINT64 = function(r) return r:%s() end\n",
            w->big_endian ? "uint64" : "le_uint64");
    fprintf(f, "local UINT = function(r) return r:%s() end\n\n",
            w->big_endian ? "uint" : "le_uint");
    lua_messages(f, proto, w);
    /* the body with its byte order's tree call */
    const char *at = strstr(lua_body, "item:ADD(");
    fwrite(lua_body, 1, (size_t)(at - lua_body), f);
    fprintf(f, "item:%s(", w->big_endian ? "add" : "add_le");
    fputs(at + strlen("item:ADD("), f);
    fprintf(f, "DissectorTable.get(\"tcp.port\"):add(%u, proto)\n", w->tcp_port);
    return ferror(f) ? -1 : 0;
}
