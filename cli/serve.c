/*
 * serve.c - `mortar serve [--db FILE] [--port N] [--allow-host NAME[:PORT]]`:
 * the explorer over HTTP on 127.0.0.1 only (libmicrohttpd). Every request of
 * / builds the page afresh from the database (report_page.h), so a reload
 * shows the runs a sweep has finished since, and /traces/<run id>.js builds
 * the one traced request the page asks for when it shows that run;
 * /api/runs and /api/verdict give the data as JSON (serve_api.h); any other
 * path is 404. A successful answer is gzip-compressed for a client that
 * takes it and carries an ETag to revalidate with (serve_reply.h). Ctrl-C
 * (or SIGTERM) stops it.
 *
 * The listening socket is bound here rather than by libmicrohttpd, so that a
 * port in use is reported plainly and --port 0 can print the port the kernel
 * picked before the first request.
 *
 * A request whose Host is not this server's is answered 421 and nothing
 * else (serve_host.h: DNS rebinding). Clients cannot lock others out: the
 * server polls with epoll (not select(), which cannot watch a descriptor
 * past FD_SETSIZE), holds at most SERVE_MAX_CONNECTIONS connections (the
 * process's descriptor limit is raised for them), closes a connection idle
 * for SERVE_IDLE_TIMEOUT_S, and one that has not sent a request's headers
 * within SERVE_HEADERS_TIMEOUT_S however it trickles them, and near the
 * limit a new connection takes the place of the one that has waited longest
 * for its headers (serve_guard.h). The guard needs a clock in the server's
 * own thread, so this thread runs libmicrohttpd's loop itself, a turn at a
 * time, and sweeps between turns.
 *
 * Error answers name no path of the machine (a run's directory is
 * "<path>" in them; the server's log has it).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "report_cmd.h"
#include "report_data.h"
#include "study.h"
#include "report_page.h"
#include "serve_api.h"
#include "serve_reply.h"
#include "gzip.h"
#include "trace_format.h"
#include "serve_guard.h"
#include "serve_host.h"
#include "usage.h"

#define SERVE_MAX_CONNECTIONS 4000
#define SERVE_IDLE_TIMEOUT_S 30
#define SERVE_HEADERS_TIMEOUT_S 5 /* a local client sends its headers at once */
#define SERVE_TURN_MS 250         /* how often the guard sweeps, and Ctrl-C is seen at the latest */
#define SERVE_SPARE_FDS 64 /* for the database, the traces and the log */

typedef struct serve_ctx {
    const char *db_path;
    study study;       /* names the variants the page compares */
    json_t *summaries; /* finished runs' trace summaries, kept between loads of / */
    serve_hosts hosts; /* the Host values it answers to */
    serve_guard guard; /* the connections waiting for a request's headers */
    double busy_ms;    /* time spent building answers, when no connection is read */
} serve_ctx;

/* Queues `len` bytes of `body` (freed here) with `status` and its
 * headers; `etag` and `coding` may be NULL. */
static enum MHD_Result queue(struct MHD_Connection *conn, unsigned status, const char *type,
                             char *body, size_t len, const char *cache, const char *etag,
                             const char *coding)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, cache);
    if (etag) {
        MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
        MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    }
    if (coding)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, coding);
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* An answer that is not to be kept: an error. */
static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status,
                               const char *type, char *body, size_t len)
{
    return queue(conn, status, type, body, len, "no-store", NULL, NULL);
}

/* 200 with `body` (freed here), compressed when the client takes gzip, or
 * 304 and no body when the client's copy is current (serve_reply.h). */
static enum MHD_Result respond_ok(struct MHD_Connection *conn, const char *type, char *body,
                                  size_t len)
{
    char etag[SERVE_REPLY_ETAG_SIZE];
    serve_reply_etag(body, len, etag);
    unsigned status = MHD_HTTP_OK;
    const char *coding = NULL;
    if (serve_reply_not_modified(
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH),
            etag)) {
        status = MHD_HTTP_NOT_MODIFIED;
        len = 0;
    } else if (serve_reply_accepts_gzip(MHD_lookup_connection_value(
                   conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING))) {
        size_t zlen;
        char *z = gzip_bytes(body, len, &zlen);
        if (z) {
            free(body);
            body = z;
            len = zlen;
            coding = "gzip";
        }
    }
    return queue(conn, status, type, body, len, SERVE_REPLY_CACHE_CONTROL, etag, coding);
}

static enum MHD_Result respond_text(struct MHD_Connection *conn, unsigned status,
                                    const char *text)
{
    char *body = strdup(text);
    return body ? respond(conn, status, "text/plain; charset=utf-8", body, strlen(body))
                : MHD_NO;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static bool path_start(const char *text, const char *c)
{
    return *c == '/' && (c == text || strchr(" \t('\"=", c[-1]));
}

/* `in` with every absolute path replaced by "<path>". */
static void redact_paths(const char *in, char *out, size_t size)
{
    size_t n = 0;
    for (const char *c = in; *c && n + 8 < size;) {
        if (path_start(in, c)) {
            n += (size_t)snprintf(out + n, size - n, "<path>");
            c += strcspn(c, " \t\n:),'\"");
        } else {
            out[n++] = *c++;
        }
    }
    out[n] = '\0';
}

/* Logs `err` and answers it with `status`, without the paths in it. */
static enum MHD_Result respond_error(struct MHD_Connection *conn, unsigned status,
                                     const char *err)
{
    char msg[2100], shown[2100];
    snprintf(msg, sizeof msg, "mortar serve: %s\n", err);
    fputs(msg, stderr);
    redact_paths(msg, shown, sizeof shown);
    return respond_text(conn, status, shown);
}

/* GET /traces/<run id>.js: that run's traced request, the script the page
 * loads when it shows the run (report_page_trace); <run id>.perfetto.json.gz
 * and <run id>.otlp.json.gz: the same request as Perfetto and OTLP JSON,
 * gzip files as `mortar report` writes them (sent as they are, not encoded
 * again). Anything else under /traces/ is 404, as is a run the database
 * does not have or without a trace. */
static enum MHD_Result serve_trace(const serve_ctx *ctx, struct MHD_Connection *conn,
                                   const char *url, const char *name)
{
    json_int_t id;
    report_trace_kind kind;
    if (report_data_trace_id(name, &id, &kind))
        return respond_text(conn, MHD_HTTP_NOT_FOUND,
                            "not found: a trace is /" REPORT_DATA_TRACES_DIR
                            "/<run id>.js (or .perfetto.json.gz, .otlp.json.gz)\n");
    double t0 = now_ms();
    char err[2048], *data;
    size_t len;
    int rc = kind == REPORT_TRACE_SCRIPT
                 ? report_page_trace(ctx->db_path, &ctx->study.metric.split, id, &data, &len,
                                     err, sizeof err)
                 : report_page_trace_export(ctx->db_path, id, kind, &data, &len, err,
                                            sizeof err);
    if (rc)
        return respond_error(
            conn, rc > 0 ? MHD_HTTP_NOT_FOUND : MHD_HTTP_INTERNAL_SERVER_ERROR, err);
    fprintf(stderr, "mortar serve: GET %s, trace built in %.0f ms\n", url, now_ms() - t0);
    if (kind != REPORT_TRACE_SCRIPT) {
        char etag[SERVE_REPLY_ETAG_SIZE];
        serve_reply_etag(data, len, etag);
        return queue(conn, MHD_HTTP_OK, "application/gzip", data, len,
                     SERVE_REPLY_CACHE_CONTROL, etag, NULL);
    }
    return respond_ok(conn, "text/javascript; charset=utf-8", data, len);
}

/* GET /api/runs and /api/verdict (serve_api.h); an error is JSON too,
 * {"error": text} without the machine's paths. */
static enum MHD_Result serve_data(const serve_ctx *ctx, struct MHD_Connection *conn,
                                  const char *url, const char *name)
{
    double t0 = now_ms();
    const char *requests =
        MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "requests");
    bool with_requests = requests && strcmp(requests, "0") && strcmp(requests, "false");
    char err[2048], *body;
    size_t len;
    unsigned status = serve_api_answer(ctx->db_path, &ctx->study, name, with_requests, &body,
                                       &len, err, sizeof err);
    if (status == MHD_HTTP_OK) {
        fprintf(stderr, "mortar serve: GET %s, data built in %.0f ms\n", url, now_ms() - t0);
        return respond_ok(conn, "application/json", body, len);
    }
    fprintf(stderr, "mortar serve: GET %s: %s\n", url, err);
    char shown[2100];
    if (serve_api_has(name))
        redact_paths(err, shown, sizeof shown);
    else
        snprintf(shown, sizeof shown, "%s", err); /* names only the server's paths */
    json_t *doc = json_pack("{s:s}", "error", shown);
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    return text ? respond(conn, status, "application/json", text, strlen(text)) : MHD_NO;
}

/* 421 to a request whose Host is not this server's: it says which are,
 * and holds nothing of the page. */
static enum MHD_Result refuse_host(const serve_ctx *ctx, struct MHD_Connection *conn,
                                   const char *host)
{
    serve_host h;
    if (!host)
        fprintf(stderr, "mortar serve: refused a request without a Host (421)\n");
    else if (serve_host_parse(host, &h))
        fprintf(stderr, "mortar serve: refused a request with a malformed Host (421)\n");
    else
        fprintf(stderr, "mortar serve: refused a request for Host %s (421)\n", h.name);
    char text[256];
    snprintf(text, sizeof text,
             "misdirected request: this server answers to Host 127.0.0.1:%u or "
             "localhost:%u (mortar serve --allow-host adds others)\n",
             ctx->hosts.port, ctx->hosts.port);
    return respond_text(conn, MHD_HTTP_MISDIRECTED_REQUEST, text);
}

static enum MHD_Result answer(serve_ctx *ctx, struct MHD_Connection *conn, const char *url,
                              const char *method)
{
    static const char traces[] = "/" REPORT_DATA_TRACES_DIR "/";
    const char *host =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (!serve_hosts_allow(&ctx->hosts, host))
        return refuse_host(ctx, conn, host);
    if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
        return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET is served\n");
    if (!strncmp(url, traces, sizeof traces - 1))
        return serve_trace(ctx, conn, url, url + sizeof traces - 1);
    if (!strncmp(url, SERVE_API_PREFIX, strlen(SERVE_API_PREFIX)))
        return serve_data(ctx, conn, url, url + strlen(SERVE_API_PREFIX));
    if (strcmp(url, "/") && strcmp(url, "/index.html"))
        return respond_text(conn, MHD_HTTP_NOT_FOUND,
                            "not found: the explorer is at /\n");
    double t0 = now_ms();
    char err[2048];
    size_t len;
    char *page = report_page_build(ctx->db_path, &ctx->study, NULL, ctx->summaries, NULL, &len,
                                   err, sizeof err);
    if (!page)
        return respond_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, err);
    fprintf(stderr, "mortar serve: GET %s, page built in %.0f ms\n", url, now_ms() - t0);
    return respond_ok(conn, "text/html; charset=utf-8", page, len);
}

/* The clock the guard's deadlines run on: the time the server has had to
 * read its connections, that is wall time less the time spent building
 * answers, so that a client whose headers came while a page was being
 * built (seconds, for a large study) is not taken for a slow one. */
static double serve_clock(const serve_ctx *ctx)
{
    return now_ms() - ctx->busy_ms;
}

static serve_conn *guarded(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* A request's headers are all in: libmicrohttpd calls this once for them
 * (and again for each piece of a body, answered already at the first). */
static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version,
                              const char *upload_data, size_t *upload_data_size,
                              void **con_cls)
{
    serve_ctx *ctx = cls;
    serve_guard_headers_in(&ctx->guard, guarded(conn));
    double t0 = now_ms();
    enum MHD_Result ret = answer(ctx, conn, url, method);
    ctx->busy_ms += now_ms() - t0;
    return ret;
}

/* A request has been answered (or abandoned): its connection, if it stays
 * open, waits for the next one's headers. */
static void request_done(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
    serve_ctx *ctx = cls;
    serve_guard_answered(&ctx->guard, guarded(conn), serve_clock(ctx));
}

/* A connection has opened (it waits for a request) or closed. */
static void connection_event(void *cls, struct MHD_Connection *conn, void **socket_context,
                             enum MHD_ConnectionNotificationCode what)
{
    serve_ctx *ctx = cls;
    if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
        serve_guard_closed(&ctx->guard, *socket_context);
        return;
    }
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    *socket_context =
        info ? serve_guard_opened(&ctx->guard, info->connect_fd, serve_clock(ctx)) : NULL;
}

/* A socket listening on 127.0.0.1:port (0: any free port); -1 with err.
 * Non-blocking: with epoll the server accepts until there is nothing left. */
static int listen_local(unsigned port, unsigned *bound, char *err, size_t err_size)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, err_size, "socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, SOMAXCONN) != 0) {
        if (errno == EADDRINUSE)
            snprintf(err, err_size,
                     "port %u on 127.0.0.1 is in use (choose another with --port N, or "
                     "--port 0 for a free one)",
                     port);
        else
            snprintf(err, err_size, "cannot listen on 127.0.0.1:%u: %s", port,
                     strerror(errno));
        close(fd);
        return -1;
    }
    socklen_t alen = sizeof addr;
    getsockname(fd, (struct sockaddr *)&addr, &alen);
    *bound = ntohs(addr.sin_port);
    return fd;
}

static int parse_port(const char *s, unsigned *port)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 65535)
        return -1;
    *port = (unsigned)v;
    return 0;
}

/* How many connections the server holds: SERVE_MAX_CONNECTIONS, or fewer
 * when the descriptor limit cannot be raised for them. */
static unsigned connection_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 256;
    rlim_t want = SERVE_MAX_CONNECTIONS + SERVE_SPARE_FDS;
    if (rl.rlim_cur < want) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur >= want)
        return SERVE_MAX_CONNECTIONS;
    return rl.rlim_cur > 2 * SERVE_SPARE_FDS ? (unsigned)(rl.rlim_cur - SERVE_SPARE_FDS)
                                              : SERVE_SPARE_FDS;
}

/* Reads the options into `ctx` and `port`: CLI_PARSED, or the status to
 * exit with. The --allow-host values go into `allowed`, which has room for
 * argc of them. */
static int parse_options(int argc, char **argv, serve_ctx *ctx, const char **study_path,
                         unsigned *port, serve_host *allowed)
{
    cli_parser p;
    cli_parser_init(&p, &mortar_cmd_serve, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key == CLI_KEY_DB)
            ctx->db_path = p.value;
        else if (key == CLI_KEY_PORT) {
            if (parse_port(p.value, port))
                return cli_usage_error(&mortar_cmd_serve, "--port wants 0 to 65535, not '%s'",
                                       p.value);
        } else if (key == CLI_KEY_ALLOW_HOST) {
            if (serve_host_parse(p.value, &allowed[ctx->hosts.n_allowed++]))
                return cli_usage_error(&mortar_cmd_serve,
                                       "--allow-host wants NAME or NAME:PORT (a port "
                                       "1 to 65535), not '%s'",
                                       p.value);
        } else if (key == CLI_KEY_STUDY)
            *study_path = p.value;
        else
            return cli_stop_status(key);
    }
    if (p.first_operand < argc)
        return cli_usage_error(&mortar_cmd_serve, "unexpected '%s'", argv[p.first_operand]);
    return CLI_PARSED;
}

static volatile sig_atomic_t stop_signal;

static void note_stop_signal(int sig)
{
    stop_signal = sig;
}

/* Runs the server's loop in this thread until SIGINT or SIGTERM: a turn of
 * libmicrohttpd's (waiting at most SERVE_TURN_MS for something to do; a
 * signal ends the wait), then the guard's sweep. 0 when stopped, 1 when
 * the loop fails. */
static int serve_until_stopped(serve_ctx *ctx, struct MHD_Daemon *d)
{
    struct sigaction on_stop = {.sa_handler = note_stop_signal, .sa_flags = SA_RESTART};
    sigemptyset(&on_stop.sa_mask);
    sigaction(SIGINT, &on_stop, NULL);
    sigaction(SIGTERM, &on_stop, NULL);
    printf("serving the explorer for %s at http://127.0.0.1:%u/ (Ctrl-C stops)\n",
           ctx->db_path, ctx->hosts.port);
    fflush(stdout);
    while (!stop_signal) {
        if (MHD_run_wait(d, SERVE_TURN_MS) != MHD_YES) {
            fprintf(stderr, "mortar serve: the HTTP server's loop failed\n");
            return 1;
        }
        serve_guard_sweep(&ctx->guard, serve_clock(ctx));
    }
    fprintf(stderr, "mortar serve: stopped (%s)\n",
            stop_signal == SIGINT ? "Ctrl-C" : "SIGTERM");
    return 0;
}

/* Serves on the listening socket `fd` (closed on return) until stopped. */
static int serve(serve_ctx *ctx, int fd)
{
    /* One thread answers every request, so the cache needs no lock. */
    unsigned limit = connection_limit();
    serve_guard_init(&ctx->guard, limit, SERVE_HEADERS_TIMEOUT_S * 1e3);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_USE_ERROR_LOG, (uint16_t)ctx->hosts.port, NULL, NULL, handle, ctx,
        MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT, limit,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_IDLE_TIMEOUT_S,
        MHD_OPTION_NOTIFY_CONNECTION, connection_event, ctx, MHD_OPTION_NOTIFY_COMPLETED,
        request_done, ctx, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "mortar serve: cannot start the HTTP server on 127.0.0.1:%u\n",
                ctx->hosts.port);
        close(fd);
        return 1;
    }
    int status = serve_until_stopped(ctx, d);
    MHD_stop_daemon(d); /* closes the listening socket too */
    return status;
}

int mortar_serve_main(int argc, char **argv)
{
    serve_ctx ctx = {.db_path = "mortar.db"};
    const char *study_path = NULL;
    unsigned port = 8080;
    serve_host *allowed = calloc((size_t)argc, sizeof *allowed);
    if (!allowed) {
        fprintf(stderr, "mortar serve: out of memory\n");
        return 1;
    }
    ctx.hosts.allowed = allowed;
    int status = parse_options(argc, argv, &ctx, &study_path, &port, allowed);
    if (status != CLI_PARSED) {
        free(allowed);
        return status;
    }

    /* Fail now, not on the first load, when the page cannot be built. */
    char err[2048];
    int fd = -1;
    if (study_load_default(&ctx.study, study_path, err, sizeof err) ||
        report_page_check(ctx.db_path, err, sizeof err) ||
        (fd = listen_local(port, &ctx.hosts.port, err, sizeof err)) < 0) {
        fprintf(stderr, "mortar serve: %s\n", err);
        status = 1;
    } else {
        ctx.summaries = json_object();
        status = serve(&ctx, fd);
        json_decref(ctx.summaries);
    }
    study_free(&ctx.study);
    free(allowed);
    return status;
}
