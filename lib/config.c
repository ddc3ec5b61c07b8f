/* lib/config.c - see config.h. */
#include "config.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const ts_setting_t common[] = {
    { "config",    TS_SET_STR, NULL,   "read settings from this INI file", 0, 0 },
    { "log-level", TS_SET_STR, "info", "debug, info, warn or error", 0, 0 },
};
#define NCOMMON (sizeof common / sizeof common[0])

struct ts_config_t {
    const char         *program, *usage, *summary;
    const ts_setting_t *settings;
    size_t              count;
    char              **values;    /* NCOMMON + count, malloc'd or NULL */
    char              **args;
    size_t              nargs;
};

ts_config_t *ts_config_new(const char *program, const char *usage, const char *summary,
                           const ts_setting_t *settings, size_t count)
{
    ts_config_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->program = program;
    self->usage = usage;
    self->summary = summary;
    self->settings = settings;
    self->count = count;
    self->values = calloc(NCOMMON + count, sizeof(char *));
    if (!self->values)
        ts_config_destroy(&self);
    return self;
}

void ts_config_destroy(ts_config_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    ts_config_t *self = *self_p;
    if (self->values)
        for (size_t i = 0; i < NCOMMON + self->count; i++)
            free(self->values[i]);
    free(self->values);
    free(self->args);
    free(self);
    *self_p = NULL;
}

static const ts_setting_t *setting_at(const ts_config_t *self, size_t i)
{
    return i < NCOMMON ? &common[i] : &self->settings[i - NCOMMON];
}

/* Index of a setting by name; '_' and '-' are the same letter here. */
static long find(const ts_config_t *self, const char *name, size_t len)
{
    for (size_t i = 0; i < NCOMMON + self->count; i++) {
        const char *s = setting_at(self, i)->name;
        size_t k = 0;
        for (; k < len && s[k]; k++) {
            char c = name[k] == '_' ? '-' : (char) tolower((unsigned char) name[k]);
            if (c != s[k])
                break;
        }
        if (k == len && s[k] == '\0')
            return (long) i;
    }
    return -1;
}

ts_config_rc_t ts_config_fail(const ts_config_t *self, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\n", self->program, msg);
    return TS_CONFIG_BAD;
}

static bool parse_bool(const char *v, bool *out)
{
    static const char *yes[] = { "1", "true", "yes", "on" }, *no[] = { "0", "false", "no", "off" };
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return *out = true, true;
        if (strcasecmp(v, no[i]) == 0)
            return *out = false, true;
    }
    return false;
}

static bool parse_long(const char *v, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end != '\0')
        return false;
    *out = n;
    return true;
}

/* Checks and stores a value; from names the source for the error line. */
static ts_config_rc_t set(ts_config_t *self, size_t i, const char *value, const char *from)
{
    const ts_setting_t *s = setting_at(self, i);
    bool b;
    long n;
    if (s->kind == TS_SET_BOOL && !parse_bool(value, &b))
        return ts_config_fail(self, "%s: %s wants true or false, not '%s'", from, s->name, value);
    if (s->kind == TS_SET_INT && (!parse_long(value, &n) || n < s->min || n > s->max))
        return ts_config_fail(self, "%s: %s wants a whole number from %ld to %ld, not '%s'", from,
                              s->name, s->min, s->max, value);
    if (strcmp(s->name, "log-level") == 0 && strcmp(value, "debug") && strcmp(value, "info")
        && strcmp(value, "warn") && strcmp(value, "error"))
        return ts_config_fail(self, "%s: log-level wants debug, info, warn or error, not '%s'", from, value);
    char *copy = strdup(value);
    if (!copy)
        return ts_config_fail(self, "out of memory");
    free(self->values[i]);
    self->values[i] = copy;
    return TS_CONFIG_OK;
}

typedef struct {
    ts_config_t   *self;
    ts_config_rc_t rc;
    const char    *path;
} file_ctx_t;

static int on_ini(void *user, const char *section, const char *key, const char *value)
{
    file_ctx_t *ctx = user;
    (void) section;
    if (ctx->rc != TS_CONFIG_OK)
        return 0;
    long i = find(ctx->self, key, strlen(key));
    if (i < 0 || i == 0) {
        ctx->rc = ts_config_fail(ctx->self, "%s: unknown setting '%s'", ctx->path, key);
        return 0;
    }
    ctx->rc = set(ctx->self, (size_t) i, value, ctx->path);
    return ctx->rc == TS_CONFIG_OK;
}

/* TICKSYNC_ and the name in capitals, '-' as '_'. */
static void env_name(const char *name, char *env, size_t cap)
{
    size_t n = (size_t) snprintf(env, cap, "TICKSYNC_");
    for (size_t k = 0; name[k] && n + 1 < cap; k++)
        env[n++] = name[k] == '-' ? '_' : (char) toupper((unsigned char) name[k]);
    env[n] = '\0';
}

static void print_help(const ts_config_t *self)
{
    printf("Usage: %s %s\n%s\n\nSettings (flag, environment variable, config file key):\n",
           self->program, self->usage, self->summary);
    for (size_t i = 0; i < NCOMMON + self->count; i++) {
        const ts_setting_t *s = setting_at(self, i);
        char env[64];
        env_name(s->name, env, sizeof env);
        printf("  --%-14s %-22s %s", s->name, env, s->help);
        if (s->def)
            printf(" (default: %s)", s->def);
        printf("\n");
    }
    printf("  --help                                 print this and exit\n"
           "  --version                              print the version and exit\n");
}

/* Pass 1 finds --config, so the file is read before the environment and the
 * other flags, which override it; pass 2 reads the rest. (--help and
 * --version were handled before either.) */
static ts_config_rc_t scan_flags(ts_config_t *self, int argc, char **argv, bool config_only)
{
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (strcmp(arg, "--") == 0) {
            for (a++; !config_only && a < argc; a++)
                self->args[self->nargs++] = argv[a];
            break;
        }
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (!config_only)
                self->args[self->nargs++] = argv[a];
            continue;
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t) (eq - name) : strlen(name);
        long i = find(self, name, len);
        if (i < 0) {
            if (config_only)
                continue;
            return ts_config_fail(self, "unknown option '%s' (see --help)", arg);
        }
        const char *value = eq ? eq + 1 : NULL;
        if (!value && setting_at(self, (size_t) i)->kind == TS_SET_BOOL)
            value = "true";
        else if (!value && a + 1 < argc)
            value = argv[++a];
        else if (!value)
            return ts_config_fail(self, "option --%s needs a value", setting_at(self, (size_t) i)->name);
        if ((i == 0) == config_only) {
            ts_config_rc_t rc = set(self, (size_t) i, value, "command line");
            if (rc != TS_CONFIG_OK)
                return rc;
        }
    }
    return TS_CONFIG_OK;
}

ts_config_rc_t ts_config_load(ts_config_t *self, int argc, char **argv)
{
    ts_config_rc_t rc;
    self->args = calloc((size_t) argc + 1, sizeof(char *));
    if (!self->args)
        return ts_config_fail(self, "out of memory");
    for (size_t i = 0; i < NCOMMON + self->count; i++)
        if (setting_at(self, i)->def && (rc = set(self, i, setting_at(self, i)->def, "default")))
            return rc;
    const char *env_config = getenv("TICKSYNC_CONFIG");
    if (env_config && (rc = set(self, 0, env_config, "TICKSYNC_CONFIG")))
        return rc;
    for (int a = 1; a < argc && strcmp(argv[a], "--") != 0; a++) {   /* --help wins over any bad setting */
        if (strcmp(argv[a], "--help") == 0) {
            print_help(self);
            return TS_CONFIG_EXIT;
        }
        if (strcmp(argv[a], "--version") == 0) {
            printf("%s %s\n", self->program, TICKSYNC_VERSION);
            return TS_CONFIG_EXIT;
        }
    }
    if ((rc = scan_flags(self, argc, argv, true)))
        return rc;
    if (self->values[0]) {
        file_ctx_t ctx = { .self = self, .rc = TS_CONFIG_OK, .path = self->values[0] };
        int err = ini_parse(ctx.path, on_ini, &ctx);
        if (ctx.rc != TS_CONFIG_OK)
            return ctx.rc;
        if (err < 0)
            return ts_config_fail(self, "cannot read config file '%s'", ctx.path);
        if (err > 0)
            return ts_config_fail(self, "%s: line %d does not parse", ctx.path, err);
    }
    for (size_t i = 1; i < NCOMMON + self->count; i++) {
        char env[64];
        env_name(setting_at(self, i)->name, env, sizeof env);
        const char *v = getenv(env);
        if (v && (rc = set(self, i, v, env)))
            return rc;
    }
    return scan_flags(self, argc, argv, false);
}

static size_t index_of(const ts_config_t *self, const char *name)
{
    long i = find(self, name, strlen(name));
    assert(i >= 0 && "undeclared setting");
    return (size_t) i;
}

const char *ts_config_str(const ts_config_t *self, const char *name)
{
    return self->values[index_of(self, name)];
}

long ts_config_int(const ts_config_t *self, const char *name)
{
    const char *v = ts_config_str(self, name);
    return v ? strtol(v, NULL, 10) : 0;
}

bool ts_config_bool(const ts_config_t *self, const char *name)
{
    const char *v = ts_config_str(self, name);
    bool b = false;
    return v && parse_bool(v, &b) && b;
}

size_t ts_config_argc(const ts_config_t *self) { return self->nargs; }
const char *ts_config_arg(const ts_config_t *self, size_t i) { return i < self->nargs ? self->args[i] : NULL; }
