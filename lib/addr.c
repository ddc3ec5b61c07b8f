/* lib/addr.c - see addr.h. */
#include "addr.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ts_addr_parse(const char *text, struct sockaddr_storage *addr, socklen_t *len, char *err)
{
    char host[128];
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text || (size_t) (colon - text) >= sizeof host) {
        snprintf(err, TS_ERR_MAX, "'%s' is not HOST:PORT", text);
        return -1;
    }
    memcpy(host, text, (size_t) (colon - text));
    host[colon - text] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || end == colon + 1 || port < 0 || port > 65535) {
        snprintf(err, TS_ERR_MAX, "'%s' has no valid port", text);
        return -1;
    }
    memset(addr, 0, sizeof *addr);
    size_t hl = strlen(host);
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *) addr;
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t) port);
        if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) == 1) {
            *len = sizeof *a6;
            return 0;
        }
    } else {
        struct sockaddr_in *a4 = (struct sockaddr_in *) addr;
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t) port);
        if (strcmp(host, "localhost") == 0)
            snprintf(host, sizeof host, "127.0.0.1");
        if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
            *len = sizeof *a4;
            return 0;
        }
    }
    snprintf(err, TS_ERR_MAX, "'%s' is not a numeric address", text);
    return -1;
}

bool ts_addr_is_loopback(const struct sockaddr_storage *addr)
{
    if (addr->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *) addr)->sin_addr.s_addr) >> 24) == 127;
    if (addr->ss_family == AF_INET6)
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *) addr)->sin6_addr);
    return false;
}

uint16_t ts_addr_port(const struct sockaddr_storage *addr)
{
    if (addr->ss_family == AF_INET)
        return ntohs(((const struct sockaddr_in *) addr)->sin_port);
    if (addr->ss_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *) addr)->sin6_port);
    return 0;
}

bool ts_addr_browsers_refuse(uint16_t port)
{
    /* https://fetch.spec.whatwg.org/#bad-port */
    static const uint16_t bad[] = { 1,    7,    9,    11,   13,   15,   17,   19,   20,   21,   22,   23,   25,
                                    37,   42,   43,   53,   69,   77,   79,   87,   95,   101,  102,  103,  104,
                                    109,  110,  111,  113,  115,  117,  119,  123,  135,  137,  139,  143,  161,
                                    179,  389,  427,  465,  512,  513,  514,  515,  526,  530,  531,  532,  540,
                                    548,  554,  556,  563,  587,  601,  636,  989,  990,  993,  995,  1719, 1720,
                                    1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
                                    6669, 6679, 6697, 10080 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (bad[i] == port)
            return true;
    return false;
}

/* One endpoint of n bytes at e. */
static bool endpoint_ok(const char *e, size_t n, char *err)
{
    if (n > 6 && strncmp(e, "ipc://", 6) == 0)
        return true;
    const char *colon = n > 6 && strncmp(e, "tcp://", 6) == 0 ? memrchr(e, ':', n) : NULL;
    size_t host = colon ? (size_t) (colon - e) - 6 : 0, digits = colon ? n - (size_t) (colon - e) - 1 : 0;
    unsigned long port = 0;
    for (size_t i = 0; i < digits && digits <= 5; i++)
        port = colon[1 + i] >= '0' && colon[1 + i] <= '9' ? port * 10 + (unsigned long) (colon[1 + i] - '0') : 0;
    if (host == 0 || digits == 0 || digits > 5 || port == 0 || port > 65535) {
        snprintf(err, TS_ERR_MAX, "'%.*s' is not tcp://HOST:PORT or ipc://PATH", (int) (n > 200 ? 200 : n), e);
        return false;
    }
    return true;
}

int ts_addr_endpoints(const char *list, char *err)
{
    int count = 0;
    for (const char *e = list;; count++) {
        const char *comma = strchr(e, ',');
        size_t n = comma ? (size_t) (comma - e) : strlen(e);
        if (!endpoint_ok(e, n, err))
            return -1;
        if (!comma)
            return count + 1;
        e = comma + 1;
    }
}
