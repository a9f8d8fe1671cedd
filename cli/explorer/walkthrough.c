/*
 * walkthrough.c - `mortar report --video` (see walkthrough.h): the scenes
 * captured, spoken and encoded by the tools named there, each run as a
 * child process whose output goes to a log in a scratch folder.
 */
#include "walkthrough.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db.h"
#include "dirs.h"
#include "launch.h"
#include "paths.h"
#include "proc_end.h"
#include "verdict.h"
#include "walkthrough_script.h"

#define PAUSE_S 0.8 /* after each scene's sentence */

/* The speech rates tried, words per minute (espeak-ng's default is 175),
 * until the video fits WALKTHROUGH_MAX_S. */
static const int rates[] = {165, 190, 215, 240};

typedef struct work {
    char dir[64]; /* the scratch folder */
    const walkthrough_script *script;
    double speech_s[WALKTHROUGH_MAX_SCENES], scene_s[WALKTHROUGH_MAX_SCENES];
    char *err;
    size_t err_size;
} work;

/* ---- the tools ------------------------------------------------------------------- */

/* Runs argv (argv[0] a program's bare name) to the end; its output goes to
 * <scratch>/<log>. -1 with err naming the tool, how it ended and the last
 * line it wrote, or where to get it. */
static int run_tool(work *w, char *argv[], const char *log, const char *package)
{
    char path[4096], why[512], log_path[128];
    if (paths_program(argv[0], path, sizeof path, why, sizeof why)) {
        snprintf(w->err, w->err_size, "%s is needed for the walkthrough (apt-get install %s): %s",
                 argv[0], package, why);
        return -1;
    }
    snprintf(log_path, sizeof log_path, "%s/%s", w->dir, log);
    launch_spec spec = {.who = "mortar report", .name = argv[0], .path = path, .argv = argv,
                        .out_path = log_path, .err_path = log_path, .append = true,
                        .death_signal = SIGKILL};
    FILE *f = fopen(log_path, "a"); /* launch appends to an existing file */
    if (f)
        fclose(f);
    pid_t pid = launch_start(&spec);
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) {
        snprintf(w->err, w->err_size, "cannot run %s: %s", path, strerror(errno));
        return -1;
    }
    if (launch_status(st) == 0)
        return 0;
    char last[300];
    proc_end_last_line(log_path, last, sizeof last);
    snprintf(w->err, w->err_size, "%s exited with status %d: %s", argv[0], launch_status(st),
             last);
    return -1;
}

/* ---- sound ----------------------------------------------------------------------- */

typedef struct wav {
    unsigned rate, channels, bits;
    unsigned char *data;
    size_t bytes;
} wav;

static uint32_t le32(const unsigned char *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A PCM WAV file as espeak-ng writes it. */
static int wav_read(const char *path, wav *out)
{
    FILE *f = fopen(path, "rb");
    unsigned char head[12], chunk[8], fmt[16];
    *out = (wav){0};
    if (!f || fread(head, 1, 12, f) != 12 || memcmp(head, "RIFF", 4) ||
        memcmp(head + 8, "WAVE", 4)) {
        if (f)
            fclose(f);
        return -1;
    }
    int rc = -1;
    while (fread(chunk, 1, 8, f) == 8) {
        uint32_t size = le32(chunk + 4);
        if (!memcmp(chunk, "fmt ", 4) && size >= 16 && fread(fmt, 1, 16, f) == 16) {
            out->channels = fmt[2] | fmt[3] << 8;
            out->rate = le32(fmt + 4);
            out->bits = fmt[14] | fmt[15] << 8;
            fseek(f, (long)size - 16, SEEK_CUR);
        } else if (!memcmp(chunk, "data", 4) && out->rate && size < (1u << 30)) {
            out->data = malloc(size ? size : 1);
            out->bytes = out->data ? fread(out->data, 1, size, f) : 0;
            rc = out->data && out->channels && out->bits == 16 ? 0 : -1;
            break;
        } else {
            fseek(f, size + (size & 1), SEEK_CUR);
        }
    }
    fclose(f);
    return rc;
}

static double wav_seconds(const wav *w)
{
    return (double)w->bytes / (w->rate * w->channels * (w->bits / 8));
}

static void put32(FILE *f, uint32_t v)
{
    unsigned char b[4] = {v & 0xff, v >> 8 & 0xff, v >> 16 & 0xff, v >> 24};
    fwrite(b, 1, 4, f);
}

static void put16(FILE *f, unsigned v)
{
    unsigned char b[2] = {v & 0xff, v >> 8 & 0xff};
    fwrite(b, 1, 2, f);
}

/* The scenes' speech one after the other, each followed by silence to
 * fill its scene, as one WAV file. */
static int wav_write_scenes(const char *path, const wav *scenes, const double *scene_s,
                            size_t n)
{
    const wav *fmt = &scenes[0];
    size_t frame = fmt->channels * (fmt->bits / 8), total = 0;
    for (size_t i = 0; i < n; i++)
        total += (size_t)llround(scene_s[i] * fmt->rate) * frame;
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fwrite("RIFF", 1, 4, f);
    put32(f, (uint32_t)(36 + total));
    fwrite("WAVEfmt ", 1, 8, f);
    put32(f, 16);
    put16(f, 1); /* PCM */
    put16(f, fmt->channels);
    put32(f, fmt->rate);
    put32(f, (uint32_t)(fmt->rate * frame));
    put16(f, (unsigned)frame);
    put16(f, fmt->bits);
    fwrite("data", 1, 4, f);
    put32(f, (uint32_t)total);
    for (size_t i = 0; i < n; i++) {
        size_t want = (size_t)llround(scene_s[i] * fmt->rate) * frame;
        size_t take = scenes[i].bytes < want ? scenes[i].bytes : want;
        fwrite(scenes[i].data, 1, take, f);
        for (size_t k = take; k < want; k++)
            fputc(0, f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* Speaks every scene at `rate` into scene-<n>.wav; their lengths in
 * w->speech_s. */
static int speak(work *w, int rate, wav *sounds)
{
    for (size_t i = 0; i < w->script->n; i++) {
        char speech[2 * WALKTHROUGH_TEXT_MAX], file[128], rate_text[16];
        walkthrough_speech(w->script->scenes[i].text, speech, sizeof speech);
        snprintf(file, sizeof file, "%s/scene-%zu.wav", w->dir, i + 1);
        snprintf(rate_text, sizeof rate_text, "%d", rate);
        char *argv[] = {"espeak-ng", "-v", "en-us", "-s", rate_text, "-w", file, speech, NULL};
        free(sounds[i].data);
        if (run_tool(w, argv, "espeak-ng.log", "espeak-ng"))
            return -1;
        if (wav_read(file, &sounds[i])) {
            snprintf(w->err, w->err_size, "espeak-ng wrote no PCM WAV file to %s", file);
            return -1;
        }
        w->speech_s[i] = wav_seconds(&sounds[i]);
    }
    return 0;
}

/* Each scene's length: its speech and a pause, the pauses stretched to
 * make the whole WALKTHROUGH_MIN_S. The whole, in seconds. */
static double time_scenes(work *w)
{
    double total = 0;
    size_t n = w->script->n;
    for (size_t i = 0; i < n; i++)
        total += w->speech_s[i] + PAUSE_S;
    double extra = total < WALKTHROUGH_MIN_S ? (WALKTHROUGH_MIN_S + 1 - total) / n : 0;
    total = 0;
    for (size_t i = 0; i < n; i++) {
        /* whole frames of 1/25 s, so that pictures and sound stay together */
        w->scene_s[i] = ceil((w->speech_s[i] + PAUSE_S + extra) * 25) / 25;
        total += w->scene_s[i];
    }
    return total;
}

/* ---- subtitles and pictures ------------------------------------------------------- */

static void vtt_time(double s, char *buf, size_t size)
{
    long ms = lround(s * 1000);
    snprintf(buf, size, "%02ld:%02ld:%02ld.%03ld", ms / 3600000, ms / 60000 % 60,
             ms / 1000 % 60, ms % 1000);
}

/* WebVTT: a cue per scene, for as long as the scene lasts. */
static char *vtt_text(const work *w, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    fprintf(f, "WEBVTT\n");
    double at = 0;
    for (size_t i = 0; i < w->script->n; i++) {
        char from[32], to[32];
        vtt_time(at, from, sizeof from);
        at += w->scene_s[i];
        vtt_time(at - 0.04, to, sizeof to);
        fprintf(f, "\n%zu\n%s --> %s\n%s\n", i + 1, from, to, w->script->scenes[i].text);
    }
    fclose(f);
    return text;
}

/* The concat demuxer's list of the scenes' pictures and their lengths. */
static int write_frames_list(const work *w, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "ffconcat version 1.0\n");
    for (size_t i = 0; i < w->script->n; i++)
        fprintf(f, "file scene-%zu.png\nduration %.3f\n", i + 1, w->scene_s[i]);
    fprintf(f, "file scene-%zu.png\n", w->script->n); /* the last one's length holds */
    return fclose(f) == 0 ? 0 : -1;
}

static int write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t put = fwrite(text, 1, len, f);
    return fclose(f) == 0 && put == len ? 0 : -1;
}

/* The scenes as pictures of the page: web/walkthrough.mjs in node. */
static int capture(work *w, const char *out_dir, const char *script_json)
{
    char web[4096], capture_js[4200], page[4200], why[512];
    if (paths_web_dir(web, sizeof web, why, sizeof why)) {
        snprintf(w->err, w->err_size, "%s", why);
        return -1;
    }
    snprintf(capture_js, sizeof capture_js, "%s/walkthrough.mjs", web);
    snprintf(page, sizeof page, "%s/index.html", out_dir);
    char *argv[] = {"node", capture_js, page, (char *)script_json, w->dir, NULL};
    return run_tool(w, argv, "capture.log", "nodejs chromium");
}

static int encode(work *w, const char *mp4)
{
    char frames[128], audio[128], filter[400];
    snprintf(frames, sizeof frames, "%s/frames.ffconcat", w->dir);
    snprintf(audio, sizeof audio, "%s/speech.wav", w->dir);
    snprintf(filter, sizeof filter,
             "fps=25,scale=1280:720,format=yuv420p,subtitles=%s/walkthrough.vtt:force_style="
             "'Fontsize=15,BorderStyle=3,Outline=2,Shadow=0,MarginV=18'",
             w->dir);
    char *argv[] = {"ffmpeg", "-nostdin", "-y", "-v", "error", "-f", "concat", "-safe", "0",
                    "-i", frames, "-i", audio, "-vf", filter, "-c:v", "libx264", "-preset",
                    "veryfast", "-crf", "26", "-c:a", "aac", "-b:a", "96k", "-shortest",
                    "-movflags", "+faststart", "-map_metadata", "-1", "-fflags", "+bitexact",
                    (char *)mp4, NULL};
    return run_tool(w, argv, "ffmpeg.log", "ffmpeg");
}

/* ---- the whole ------------------------------------------------------------------ */

static int make(work *w, const char *out_dir, int out, wav *sounds)
{
    char path[256], shown[4300];
    json_t *scenes = walkthrough_script_json(w->script);
    snprintf(path, sizeof path, "%s/script.json", w->dir);
    if (json_dump_file(scenes, path, JSON_INDENT(1)) || capture(w, out_dir, path)) {
        json_decref(scenes);
        return -1;
    }
    double total = 0;
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
        if (speak(w, rates[r], sounds))
            return json_decref(scenes), -1;
        if ((total = time_scenes(w)) <= WALKTHROUGH_MAX_S)
            break;
    }
    size_t i, vtt_len, mp4_len = 0;
    json_t *s;
    json_array_foreach(scenes, i, s) {
        json_object_set_new(s, "seconds", json_real(w->scene_s[i]));
    }
    char *vtt = vtt_text(w, &vtt_len), *mp4 = NULL, *script = json_dumps(scenes, JSON_INDENT(1));
    json_decref(scenes);
    char wav_path[128], vtt_path[128], mp4_path[128];
    snprintf(wav_path, sizeof wav_path, "%s/speech.wav", w->dir);
    snprintf(vtt_path, sizeof vtt_path, "%s/walkthrough.vtt", w->dir);
    snprintf(mp4_path, sizeof mp4_path, "%s/walkthrough.mp4", w->dir);
    snprintf(path, sizeof path, "%s/frames.ffconcat", w->dir);
    int rc = !vtt || !script || wav_write_scenes(wav_path, sounds, w->scene_s, w->script->n) ||
                     write_text(vtt_path, vtt, vtt_len) || write_frames_list(w, path)
                 ? (snprintf(w->err, w->err_size, "cannot write in %s", w->dir), -1)
                 : 0;
    if (!rc)
        rc = encode(w, mp4_path);
    if (!rc && !(mp4 = dirs_read_file(mp4_path, &mp4_len, w->err, w->err_size)))
        rc = -1;
    struct {
        const char *name, *data;
        size_t len;
    } files[] = {{WALKTHROUGH_VIDEO, mp4, mp4_len},
                 {WALKTHROUGH_SUBTITLES, vtt, vtt_len},
                 {WALKTHROUGH_SCRIPT, script, script ? strlen(script) : 0}};
    for (size_t k = 0; !rc && k < 3; k++) {
        snprintf(shown, sizeof shown, "%s/%s", out_dir, files[k].name);
        rc = dirs_replace_file(out, files[k].name, shown, files[k].data, files[k].len, w->err,
                               w->err_size);
    }
    if (!rc)
        fprintf(stderr, "mortar report: wrote %s/walkthrough.mp4 (%.1f s, %zu scenes) and its "
                        "subtitles walkthrough.vtt\n",
                out_dir, total, w->script->n);
    free(vtt);
    free(mp4);
    free(script);
    return rc;
}

json_t *walkthrough_data(void)
{
    return json_pack("{s:{s:s, s:s, s:s}}", "walkthrough", "video", WALKTHROUGH_VIDEO,
                     "subtitles", WALKTHROUGH_SUBTITLES, "script", WALKTHROUGH_SCRIPT);
}

int walkthrough_make(const char *db_path, const study *st, const char *out_dir, int out,
                     char *err, size_t err_size)
{
    db_conn *db;
    json_t *verdict = NULL;
    if (db_open_read(&db, db_path, err, err_size))
        return -1;
    char why[1024];
    int found = verdict_of_database(db, st, &verdict, why, sizeof why);
    db_close(db);
    if (found) {
        snprintf(err, err_size, "no walkthrough: %s",
                 found > 0 ? "no run has finished yet" : why);
        return -1;
    }
    walkthrough_script script;
    work w = {.script = &script, .err = err, .err_size = err_size};
    int rc = walkthrough_script_build(st, verdict, &script, err, err_size);
    json_decref(verdict);
    snprintf(w.dir, sizeof w.dir, "/tmp/mortar-walkthrough.XXXXXX");
    if (!rc && !mkdtemp(w.dir))
        rc = (snprintf(err, err_size, "cannot create %s: %s", w.dir, strerror(errno)), -1);
    if (rc)
        return -1;
    wav sounds[WALKTHROUGH_MAX_SCENES] = {{0}};
    rc = make(&w, out_dir, out, sounds);
    for (size_t i = 0; i < WALKTHROUGH_MAX_SCENES; i++)
        free(sounds[i].data);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", w.dir);
    if (system(cmd) != 0)
        fprintf(stderr, "mortar report: could not remove %s\n", w.dir);
    return rc;
}
