/* lib/curve.h - CurveZMQ certificates as the gate and the scene load them:
 * czmq's zcert files (ticksync-admin keygen writes them), checked on load,
 * so a public certificate given where a secret one is needed is refused
 * with a clear reason instead of failing the handshake later. */
#ifndef TS_LIB_CURVE_H
#define TS_LIB_CURVE_H

#include <czmq.h>
#include <stdbool.h>

/* zcert_load of path; with secret, the certificate must hold a secret key.
 * Returns the certificate (the caller destroys it), or NULL with
 * "'path' is not a readable CurveZMQ secret|public certificate" in err
 * (TS_ERR_MAX bytes). */
zcert_t *ts_curve_load(const char *path, bool secret, char *err);

#endif
