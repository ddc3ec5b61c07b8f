/* tools/http.c - see http.h. */
#include "http.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#define ANSWER_MAX (16 << 20)

int ts_http_parse_url(const char *url, char *host, char *port, char *prefix, char *err)
{
    if (strncmp(url, "http://", 7) != 0) {
        snprintf(err, TS_ERR_MAX, "'%s' is not an http:// URL", url);
        return -1;
    }
    const char *h = url + 7, *slash = strchr(h, '/');
    size_t hostport = slash ? (size_t) (slash - h) : strlen(h);
    const char *colon = memrchr(h, ':', hostport);
    if (h[0] == '[') {   /* [v6]:port */
        const char *close = memchr(h, ']', hostport);
        colon = close && close + 1 < h + hostport && close[1] == ':' ? close + 1 : NULL;
    }
    size_t hl = colon ? (size_t) (colon - h) : hostport;
    size_t pl = colon ? hostport - hl - 1 : 2;
    if (hl == 0 || hl > 255 || pl == 0 || pl > 5) {
        snprintf(err, TS_ERR_MAX, "'%s' has no valid host and port", url);
        return -1;
    }
    if (h[0] == '[') {
        memcpy(host, h + 1, hl - 2);
        host[hl - 2] = '\0';
    } else {
        memcpy(host, h, hl);
        host[hl] = '\0';
    }
    if (colon) {
        memcpy(port, colon + 1, pl);
        port[pl] = '\0';
    } else {
        strcpy(port, "80");
    }
    snprintf(prefix, 256, "%s", slash ? slash : "");
    size_t n = strlen(prefix);
    while (n > 0 && prefix[n - 1] == '/')
        prefix[--n] = '\0';
    return 0;
}

/* Waits for fd to be ready for events until deadline (monotonic µs). */
static int wait_for(int fd, short events, int64_t deadline)
{
    struct pollfd p = { .fd = fd, .events = events };
    int64_t left = deadline - ts_clock_mono_us();
    if (left <= 0)
        return 0;
    int rc = poll(&p, 1, (int) ((left + 999) / 1000));
    return rc > 0 ? 1 : rc;
}

static int connect_to(const char *host, const char *port, int64_t deadline, char *err)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, TS_ERR_MAX, "cannot resolve %.64s: %.100s", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    const char *why = "no address";
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0)
            continue;
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (connect(fd, a->ai_addr, a->ai_addrlen) < 0
            && (errno != EINPROGRESS || wait_for(fd, POLLOUT, deadline) <= 0
                || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr != 0)) {
            why = soerr ? strerror(soerr) : errno == EINPROGRESS ? "timed out" : strerror(errno);
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        snprintf(err, TS_ERR_MAX, "cannot connect to %.64s:%s: %.100s", host, port, why);
    return fd;
}

static int send_all(int fd, const char *buf, size_t len, int64_t deadline)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t) n;
        } else if (n < 0 && errno == EAGAIN && wait_for(fd, POLLOUT, deadline) > 0) {
            continue;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            return -1;
        }
    }
    return 0;
}

/* Reads until the peer closes. Returns the malloc'd bytes, or NULL. */
static char *read_all(int fd, size_t *len, int64_t deadline, char *err)
{
    size_t cap = 8192;
    char *buf = malloc(cap);
    *len = 0;
    while (buf) {
        if (*len + 1 >= cap) {
            char *bigger = cap < ANSWER_MAX ? realloc(buf, cap * 2) : NULL;
            if (!bigger) {
                snprintf(err, TS_ERR_MAX, "answer too large");
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = recv(fd, buf + *len, cap - *len - 1, 0);
        if (n > 0) {
            *len += (size_t) n;
        } else if (n == 0) {
            buf[*len] = '\0';
            return buf;
        } else if (errno == EINTR || (errno == EAGAIN && wait_for(fd, POLLIN, deadline) > 0)) {
            continue;
        } else {
            snprintf(err, TS_ERR_MAX, "%s", errno == EAGAIN ? "timed out" : strerror(errno));
            break;
        }
    }
    free(buf);
    return NULL;
}

/* Connects to base_url's host and sends GET base_url + path, or with a
 * body (not NULL) a POST of it. Returns the socket, or -1 with a reason in
 * err. */
static int send_request(const char *base_url, const char *path, const char *token, const char *body, size_t len,
                        int64_t deadline, char *err)
{
    char host[256], port[8], prefix[256], req[2048], length[64] = "";
    if (ts_http_parse_url(base_url, host, port, prefix, err) < 0)
        return -1;
    if (body)
        snprintf(length, sizeof length, "Content-Type: application/json\r\nContent-Length: %zu\r\n", len);
    int n = snprintf(req, sizeof req, "%s %s%s HTTP/1.1\r\nHost: %s:%s\r\nAccept: */*\r\nConnection: close\r\n%s%s%s%s\r\n",
                     body ? "POST" : "GET", prefix, path, host, port, token ? "Authorization: Bearer " : "",
                     token ? token : "", token ? "\r\n" : "", length);
    if (n < 0 || (size_t) n >= sizeof req) {
        snprintf(err, TS_ERR_MAX, "request too long");
        return -1;
    }
    int fd = connect_to(host, port, deadline, err);
    if (fd >= 0 && (send_all(fd, req, (size_t) n, deadline) < 0 || (body && send_all(fd, body, len, deadline) < 0))) {
        snprintf(err, TS_ERR_MAX, "cannot send to %.64s:%s", host, port);
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Splits raw (NUL-terminated, len bytes) at the end of its head: the
 * status into *status, the head NUL-terminated, the body's offset
 * returned; -1 with a reason in err when it is not HTTP this client reads. */
static long split_head(char *raw, const char *base_url, int *status, char *err)
{
    char *end = strstr(raw, "\r\n\r\n");
    if (!end || sscanf(raw, "HTTP/1.%*1[01] %3d", status) != 1 || *status < 100) {
        snprintf(err, TS_ERR_MAX, "%.100s did not answer HTTP", base_url);
        return -1;
    }
    *end = '\0';
    if (strcasestr(raw, "\r\nTransfer-Encoding: chunked")) {
        snprintf(err, TS_ERR_MAX, "%.100s answered chunked, which this client does not read", base_url);
        return -1;
    }
    return end + 4 - raw;
}

/* One request, its whole answer read into *answer. */
static int request(const char *base_url, const char *path, const char *token, const char *body, size_t body_len,
                   int timeout_ms, ts_http_answer_t *answer, char *err)
{
    memset(answer, 0, sizeof *answer);
    int64_t deadline = ts_clock_mono_us() + (int64_t) timeout_ms * 1000;
    int fd = send_request(base_url, path, token, body, body_len, deadline, err);
    if (fd < 0)
        return -1;
    size_t len = 0;
    char *raw = read_all(fd, &len, deadline, err);
    close(fd);
    int status = 0;
    long at = raw ? split_head(raw, base_url, &status, err) : -1;
    if (at < 0) {
        free(raw);
        return -1;
    }
    answer->status = status;
    answer->len = len - (size_t) at;
    memmove(raw, raw + at, answer->len + 1);
    answer->body = raw;
    return 0;
}

int ts_http_get(const char *base_url, const char *path, const char *token, int timeout_ms,
                ts_http_answer_t *answer, char *err)
{
    return request(base_url, path, token, NULL, 0, timeout_ms, answer, err);
}

int ts_http_post(const char *base_url, const char *path, const char *token, const char *body, size_t len,
                 int timeout_ms, ts_http_answer_t *answer, char *err)
{
    return request(base_url, path, token, body ? body : "", body ? len : 0, timeout_ms, answer, err);
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t) n;
    }
    return 0;
}

int ts_http_get_file(const char *base_url, const char *path, const char *token, int timeout_ms, int out, char *err)
{
    int64_t idle = (int64_t) timeout_ms * 1000;
    int fd = send_request(base_url, path, token, NULL, 0, ts_clock_mono_us() + idle, err);
    if (fd < 0)
        return -1;
    char buf[65536];
    size_t have = 0;
    long body = -1;
    int status = 0;
    unsigned long long expected = 0, got = 0;
    bool sized = false, failed = false;
    for (;;) {
        ssize_t n = recv(fd, buf + have, sizeof buf - have - 1, 0);
        if (n < 0 && (errno == EINTR || (errno == EAGAIN && wait_for(fd, POLLIN, ts_clock_mono_us() + idle) > 0)))
            continue;
        if (n < 0) {
            snprintf(err, TS_ERR_MAX, "%s", errno == EAGAIN ? "timed out" : strerror(errno));
            failed = true;
            break;
        }
        have += (size_t) n;
        buf[have] = '\0';
        if (body < 0 && n > 0 && !strstr(buf, "\r\n\r\n")) {   /* the head is not whole yet */
            if (have + 1 < sizeof buf)
                continue;
            snprintf(err, TS_ERR_MAX, "%.100s sent a head too long", base_url);
            failed = true;
            break;
        }
        if (body < 0) {
            if ((body = split_head(buf, base_url, &status, err)) < 0) {
                failed = true;
                break;
            }
            const char *cl = strcasestr(buf, "\r\nContent-Length:");
            sized = cl && sscanf(cl + 18, "%llu", &expected) == 1;
            if (status != 200) {   /* the error's JSON, as much as came with the head */
                snprintf(err, TS_ERR_MAX, "%.200s", buf + body);
                break;
            }
            memmove(buf, buf + body, have - (size_t) body);
            have -= (size_t) body;
        }
        if (write_all(out, buf, have) < 0) {
            snprintf(err, TS_ERR_MAX, "cannot write: %s", strerror(errno));
            failed = true;
            break;
        }
        got += have;
        have = 0;
        if (n == 0)
            break;
    }
    close(fd);
    if (!failed && status == 200 && ((sized && got != expected) || body < 0)) {
        snprintf(err, TS_ERR_MAX, "the answer ended after %llu of %llu bytes", got, expected);
        failed = true;
    }
    return failed ? -1 : status;
}

void ts_http_free(ts_http_answer_t *answer)
{
    free(answer->body);
    answer->body = NULL;
    answer->len = 0;
}
