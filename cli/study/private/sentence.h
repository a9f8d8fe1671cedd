/*
 * sentence.h - a sentence being written piece by piece into a fixed buffer
 * (the verdict's sentences: verdict.c, crossing_text.c). A piece that does
 * not fit is cut; a sentence is at most SENTENCE_MAX - 1 bytes.
 */
#ifndef MORTAR_CLI_SENTENCE_H
#define MORTAR_CLI_SENTENCE_H

#include <jansson.h>
#include <stddef.h>

#define SENTENCE_MAX 1024

typedef struct sentence {
    char s[SENTENCE_MAX];
    size_t n;
} sentence;

/* Appends printf-style text. */
void sentence_add(sentence *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends the sentence to the JSON array `to` unless it is empty. */
void sentence_append_to(json_t *to, const sentence *b);

#endif
