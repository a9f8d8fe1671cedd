/*
 * walkthrough.h - `mortar report --video`: the one-minute narrated
 * walkthrough of a study, made from the page `mortar report` just wrote.
 *
 * The narration is walkthrough_script.h's, from the verdict. Each scene is
 * a screen of the page itself (web/walkthrough.mjs: Debian's chromium via
 * playwright-core, 1280x720), its sentence spoken by espeak-ng and burned
 * in as its subtitle, and the whole encoded by ffmpeg as H.264 and AAC:
 * DIR/walkthrough.mp4, its subtitles DIR/walkthrough.vtt and its script
 * with the times DIR/walkthrough.json. A scene lasts its speech and a
 * pause; the pauses are stretched to make the video at least
 * WALKTHROUGH_MIN_S long, and the speech sped up when it would be longer
 * than WALKTHROUGH_MAX_S. The same database gives the same script and
 * subtitles.
 */
#ifndef MORTAR_CLI_WALKTHROUGH_H
#define MORTAR_CLI_WALKTHROUGH_H

#include <jansson.h>
#include <stddef.h>

#include "study.h"

/* The files beside the page. */
#define WALKTHROUGH_VIDEO     "walkthrough.mp4"
#define WALKTHROUGH_SUBTITLES "walkthrough.vtt"
#define WALKTHROUGH_SCRIPT    "walkthrough.json"

#define WALKTHROUGH_MIN_S 50.0
#define WALKTHROUGH_MAX_S 70.0

/* What the page's data says of the walkthrough beside it:
 * {"walkthrough": {"video": "walkthrough.mp4", "subtitles": "walkthrough.vtt",
 * "script": "walkthrough.json"}}. A new reference. */
json_t *walkthrough_data(void);

/* Writes the walkthrough of the results database `db_path` (study `st`)
 * beside the page in `out_dir` (open as `out`). 0, or -1 with `err` naming
 * the step and the tool that failed (and how to install it). */
int walkthrough_make(const char *db_path, const study *st, const char *out_dir, int out,
                     char *err, size_t err_size);

#endif
