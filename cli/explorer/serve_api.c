/*
 * serve_api.c - /api/runs and /api/verdict (see serve_api.h).
 */
#include "serve_api.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "json_line.h"
#include "results_format.h"
#include "verdict.h"
#include "verdict_answer.h"

/* `doc` as the command writes it (`flags`, then a newline); NULL when memory
 * runs out. Takes `doc`. */
static char *as_text(json_t *doc, size_t flags, size_t *len)
{
    char *text = json_line(doc, flags, len);
    json_decref(doc);
    return text;
}

static unsigned runs_answer(db_conn *db, const char *db_path, bool with_requests,
                            char **body, size_t *len, char *err, size_t err_size)
{
    json_t *doc = results_json(db, with_requests);
    if (!doc) {
        snprintf(err, err_size, "%s: %s", db_path, db_last_error());
        return 500;
    }
    *body = as_text(doc, RESULTS_JSON_FLAGS, len);
    return *body ? 200 : 500;
}

/* `verdict_text` (the verdict as the command prints it: an indented object
 * and a newline) with "answer" added as its last member, written as the
 * page's data writes it (compact, every digit), not to the verdict's ten:
 * the same numbers as the page's. Takes `verdict_text`; NULL when memory
 * runs out. */
static char *with_answer(char *verdict_text, const json_t *answer, size_t *len)
{
    char *answer_text = json_dumps(answer ? answer : json_null(), JSON_COMPACT |
                                                                     JSON_ENCODE_ANY);
    size_t end = verdict_text ? strlen(verdict_text) : 0;
    while (end > 0 && verdict_text[end - 1] != '}') /* the object's closing brace */
        end--;
    char *text = NULL;
    if (answer_text && end > 0) {
        size_t room = end + strlen(answer_text) + 32;
        text = malloc(room);
        if (text)
            *len = (size_t)snprintf(text, room, "%.*s,\n \"answer\": %s\n}\n",
                                    (int)(end - 1 - (end > 1 && verdict_text[end - 2] == '\n')),
                                    verdict_text, answer_text);
    }
    free(answer_text);
    free(verdict_text);
    return text;
}

/* The verdict as `mortar verdict --json` prints it, with the answer as the
 * page's data carries it (verdict_answer_of_study) as its last member. */
static unsigned verdict_reply(db_conn *db, const char *db_path, const study *st,
                              char **body, size_t *len, char *err, size_t err_size)
{
    json_t *v;
    char why[1024];
    int rc = verdict_of_database(db, st, &v, why, sizeof why);
    if (rc > 0)
        snprintf(err, err_size, "no finished runs in %s", db_path);
    else if (rc < 0)
        snprintf(err, err_size, "%s: %s", db_path, why);
    if (rc)
        return rc > 0 ? 404 : 500;
    json_t *answer = verdict_answer_of_study(v, st);
    *body = with_answer(json_line(v, VERDICT_JSON_FLAGS, len), answer, len);
    json_decref(answer);
    json_decref(v);
    return *body ? 200 : 500;
}

bool serve_api_has(const char *name)
{
    return !strcmp(name, "runs") || !strcmp(name, "verdict");
}

unsigned serve_api_answer(const char *db_path, const study *st, const char *name,
                          bool with_requests, char **body, size_t *len, char *err,
                          size_t err_size)
{
    *body = NULL;
    err[0] = '\0';
    bool runs = !strcmp(name, "runs");
    if (!serve_api_has(name)) {
        snprintf(err, err_size, SERVE_API_NOT_FOUND);
        return 404;
    }
    db_conn *db;
    if (db_open_read(&db, db_path, err, err_size))
        return 500;
    unsigned status = runs ? runs_answer(db, db_path, with_requests, body, len, err, err_size)
                           : verdict_reply(db, db_path, st, body, len, err, err_size);
    if (status == 500 && !*body && !err[0])
        snprintf(err, err_size, "out of memory");
    db_close(db);
    return status;
}
