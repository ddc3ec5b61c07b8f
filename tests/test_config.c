/* tests/test_config.c - settings: defaults, file < environment < flag,
 * ranges and kinds, positional arguments, unknown names, --help. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"

static const ts_setting_t settings[] = {
    { "listen", TS_SET_STR, "127.0.0.1:7700", "address", 0, 0 },
    { "sync-rate", TS_SET_INT, "20", "rate", 1, 1000 },
    { "allow-open", TS_SET_BOOL, "false", "open", 0, 0 },
    { "secret-file", TS_SET_STR, NULL, "secret", 0, 0 },
};

static ts_config_t *load(int argc, char **argv, ts_config_rc_t *rc)
{
    ts_config_t *c = ts_config_new("prog", "[options]", "A test.", settings, 4);
    cr_assert_not_null(c);
    *rc = ts_config_load(c, argc, argv);
    return c;
}

static void clean_env(void)
{
    unsetenv("TICKSYNC_SYNC_RATE");
    unsetenv("TICKSYNC_LISTEN");
    unsetenv("TICKSYNC_CONFIG");
}

Test(config, defaults_then_file_then_environment_then_flags, .init = clean_env, .fini = clean_env)
{
    char path[] = "/tmp/ts-config-XXXXXX";
    int fd = mkstemp(path);
    dprintf(fd, "# comment\nsync-rate = 30\nlisten = 10.0.0.1:1\nallow-open = yes\n");
    close(fd);
    ts_config_rc_t rc;
    char *none[] = { "prog", NULL };
    ts_config_t *c = load(1, none, &rc);
    cr_assert_eq(rc, TS_CONFIG_OK);
    cr_assert_str_eq(ts_config_str(c, "listen"), "127.0.0.1:7700");
    cr_assert_eq(ts_config_int(c, "sync-rate"), 20);
    cr_assert_not(ts_config_bool(c, "allow-open"));
    cr_assert_null(ts_config_str(c, "secret-file"), "unset without a default");
    ts_config_destroy(&c);
    cr_assert_null(c);

    setenv("TICKSYNC_SYNC_RATE", "40", 1);
    char *args[] = { "prog", "--config", path, "--listen=1.2.3.4:5", "extra", NULL };
    c = load(5, args, &rc);
    cr_assert_eq(rc, TS_CONFIG_OK);
    cr_assert_eq(ts_config_int(c, "sync-rate"), 40, "environment beats the file");
    cr_assert_str_eq(ts_config_str(c, "listen"), "1.2.3.4:5", "a flag beats the file");
    cr_assert(ts_config_bool(c, "allow-open"), "from the file");
    cr_assert_eq(ts_config_argc(c), 1);
    cr_assert_str_eq(ts_config_arg(c, 0), "extra");
    ts_config_destroy(&c);

    char *flag[] = { "prog", "--config", path, "--sync-rate", "50", NULL };
    c = load(5, flag, &rc);
    cr_assert_eq(ts_config_int(c, "sync-rate"), 50, "a flag beats the environment");
    ts_config_destroy(&c);
    unlink(path);
}

Test(config, bad_settings_are_refused_with_one_line, .init = cr_redirect_stderr, .fini = clean_env)
{
    ts_config_rc_t rc;
    char *range[] = { "prog", "--sync-rate", "0", NULL };
    ts_config_t *c = load(3, range, &rc);
    cr_assert_eq(rc, TS_CONFIG_BAD);
    ts_config_destroy(&c);
    char *word[] = { "prog", "--sync-rate", "fast", NULL };
    c = load(3, word, &rc);
    cr_assert_eq(rc, TS_CONFIG_BAD);
    ts_config_destroy(&c);
    char *unknown[] = { "prog", "--nope", NULL };
    c = load(2, unknown, &rc);
    cr_assert_eq(rc, TS_CONFIG_BAD);
    ts_config_destroy(&c);
    char *missing[] = { "prog", "--listen", NULL };
    c = load(2, missing, &rc);
    cr_assert_eq(rc, TS_CONFIG_BAD);
    ts_config_destroy(&c);
    char *nofile[] = { "prog", "--config", "/nonexistent/ts.conf", NULL };
    c = load(3, nofile, &rc);
    cr_assert_eq(rc, TS_CONFIG_BAD);
    ts_config_destroy(&c);
    setenv("TICKSYNC_SYNC_RATE", "9999", 1);
    char *none[] = { "prog", NULL };
    c = load(1, none, &rc);
    cr_assert_eq(rc, TS_CONFIG_BAD, "the environment is checked too");
    ts_config_destroy(&c);
    fflush(stderr);
    cr_assert_stderr_neq_str("");
}

Test(config, help_lists_every_setting_and_exits, .init = cr_redirect_stdout)
{
    ts_config_rc_t rc;
    char *help[] = { "prog", "--sync-rate", "0", "--help", NULL };
    ts_config_t *c = load(4, help, &rc);
    cr_assert_eq(rc, TS_CONFIG_EXIT, "--help wins over a bad setting");
    ts_config_destroy(&c);
    fflush(stdout);
    FILE *out = cr_get_redirected_stdout();
    char text[4096] = "";
    size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    cr_assert(strstr(text, "--sync-rate") && strstr(text, "TICKSYNC_SYNC_RATE") && strstr(text, "--config")
              && strstr(text, "--log-level") && strstr(text, "(default: 20)"), "%s", text);
}
