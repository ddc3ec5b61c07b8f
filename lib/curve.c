/* lib/curve.c - see curve.h. */
#include "curve.h"

#include <string.h>

#include "err.h"

zcert_t *ts_curve_load(const char *path, bool secret, char *err)
{
    static const byte none[32];
    zcert_t *cert = zcert_load(path);
    if (!cert || (secret && memcmp(zcert_secret_key(cert), none, sizeof none) == 0)) {
        snprintf(err, TS_ERR_MAX, "'%s' is not a readable CurveZMQ %s certificate", path, secret ? "secret" : "public");
        zcert_destroy(&cert);
    }
    return cert;
}
