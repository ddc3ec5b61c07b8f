/* lib/config.h - settings (DESIGN.md "Configuration"). Each setting has one
 * name used three ways: a flag (--sync-rate 20 or --sync-rate=20), an
 * environment variable (TICKSYNC_SYNC_RATE) and a key of the optional config
 * file (sync-rate = 20, INI syntax, read with inih). Later sources win:
 * default < file < environment < flag. Every program also gets --config,
 * --log-level, --help and --version. */
#ifndef TS_LIB_CONFIG_H
#define TS_LIB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { TS_SET_STR, TS_SET_INT, TS_SET_BOOL } ts_set_kind_t;

typedef struct {
    const char   *name;   /* "sync-rate" */
    ts_set_kind_t kind;
    const char   *def;    /* default as text; NULL: unset */
    const char   *help;   /* one line for --help */
    long          min, max; /* range of a TS_SET_INT */
} ts_setting_t;

typedef enum {
    TS_CONFIG_OK   = 0,  /* go on */
    TS_CONFIG_EXIT = 1,  /* --help or --version was printed: exit 0 */
    TS_CONFIG_BAD  = 2,  /* one line on stderr was printed: exit 2 */
} ts_config_rc_t;

typedef struct ts_config_t ts_config_t;

/* settings must outlive the object. usage is the synopsis after the
 * program name in --help ("[options]"). Returns NULL when out of memory. */
ts_config_t *ts_config_new(const char *program, const char *usage, const char *summary,
                           const ts_setting_t *settings, size_t count);
void ts_config_destroy(ts_config_t **self_p);

/* Reads defaults, file, environment and argv. Arguments that are not flags
 * are kept in order as positional arguments. */
ts_config_rc_t ts_config_load(ts_config_t *self, int argc, char **argv);

/* Values by setting name; asking for an undeclared name is a programming
 * error. ts_config_str returns NULL for an unset setting. */
const char *ts_config_str(const ts_config_t *self, const char *name);
long        ts_config_int(const ts_config_t *self, const char *name);
bool        ts_config_bool(const ts_config_t *self, const char *name);

/* Positional arguments. */
size_t      ts_config_argc(const ts_config_t *self);
const char *ts_config_arg(const ts_config_t *self, size_t i);

/* Prints "PROGRAM: MESSAGE" on stderr, for a bad setting the caller finds
 * after loading (an address that does not parse, say). Returns TS_CONFIG_BAD. */
ts_config_rc_t ts_config_fail(const ts_config_t *self, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
