/* tests/chserver.h - a real ClickHouse for a C test: Debian's
 * clickhouse-server (deploy/install-deps.sh --tests) started as a child
 * process on free loopback ports, its data in a folder of its own, as
 * tests/clickhouse.sh starts it for the shell tests. */
#ifndef TS_TESTS_CHSERVER_H
#define TS_TESTS_CHSERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clickhouse.h"
#include "freeport.h"

typedef struct {
    pid_t pid;
    int   http_port;
    char  dir[64];
    char  url[64];
} test_ch_t;

/* Starts it and waits until it answers (15 s at most). Returns false when
 * it did not come up; its log is then in dir/server.log. */
static inline bool test_ch_start(test_ch_t *ch)
{
    snprintf(ch->dir, sizeof ch->dir, "/tmp/ts-ch-XXXXXX");
    if (!mkdtemp(ch->dir))
        return false;
    int base = test_free_ports(31000, 2000, 2);
    ch->http_port = base;
    snprintf(ch->url, sizeof ch->url, "http://127.0.0.1:%d", base);
    char path[128];
    snprintf(path, sizeof path, "%s/config.xml", ch->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f, "<?xml version=\"1.0\"?>\n<yandex>\n  <logger><level>warning</level><console>1</console></logger>\n"
               "  <http_port>%d</http_port>\n  <tcp_port>%d</tcp_port>\n  <listen_host>127.0.0.1</listen_host>\n"
               "  <path>%s/data/</path>\n  <tmp_path>%s/tmp/</tmp_path>\n  <user_files_path>%s/user_files/</user_files_path>\n"
               "  <users_config>/etc/clickhouse-server/users.xml</users_config>\n  <default_profile>default</default_profile>\n"
               "  <default_database>default</default_database>\n  <mark_cache_size>268435456</mark_cache_size>\n"
               "  <timezone>UTC</timezone>\n</yandex>\n", base, base + 1, ch->dir, ch->dir, ch->dir);
    fclose(f);
    ch->pid = fork();
    if (ch->pid == 0) {
        char arg[160], log[128];
        snprintf(arg, sizeof arg, "--config-file=%s", path);
        snprintf(log, sizeof log, "%s/server.log", ch->dir);
        if (!freopen(log, "a", stdout) || !freopen(log, "a", stderr))
            _exit(127);
        execl("/usr/sbin/clickhouse-server", "clickhouse-server", arg, (char *) NULL);
        execlp("clickhouse-server", "clickhouse-server", arg, (char *) NULL);
        _exit(127);
    }
    if (ch->pid < 0)
        return false;
    char err[TS_ERR_MAX];
    ts_clickhouse_t *c = ts_clickhouse_new(ch->url, 1000, err);
    bool up = false;
    for (int i = 0; c && i < 150 && !up; i++) {
        up = ts_clickhouse_run(c, "SELECT 1", NULL, 0, NULL, err) == 0;
        if (!up)
            usleep(100000);
    }
    ts_clickhouse_destroy(&c);
    return up;
}

static inline void test_ch_stop(test_ch_t *ch)
{
    if (ch->pid > 0) {
        kill(ch->pid, SIGKILL);
        waitpid(ch->pid, NULL, 0);
        ch->pid = 0;
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", ch->dir);
    if (ch->dir[0] && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", ch->dir);
}

#endif
