/*
 * json_line.c - a JSON document and its newline (see json_line.h).
 */
#include "json_line.h"

#include <stdlib.h>
#include <string.h>

char *json_line(const json_t *doc, size_t flags, size_t *len)
{
    char *text = json_dumps(doc, flags);
    if (!text)
        return NULL;
    *len = strlen(text);
    char *line = realloc(text, *len + 2);
    if (!line) {
        free(text);
        return NULL;
    }
    line[(*len)++] = '\n';
    line[*len] = '\0';
    return line;
}
