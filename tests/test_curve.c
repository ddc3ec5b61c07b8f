/* tests/test_curve.c - CurveZMQ certificates load checked: a secret one
 * must hold its secret key, a public one may not stand in for it, and a
 * missing file is a clear reason, not a crash later in the handshake. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

#include "curve.h"
#include "err.h"

static char dir[64], pub[96], sec[96], lone[96];

static void make_pair(void)
{
    snprintf(dir, sizeof dir, "/tmp/ts-test-curve-%d", (int) getpid());
    cr_assert_eq(zsys_dir_create("%s", dir), 0);
    snprintf(pub, sizeof pub, "%s/scene", dir);
    snprintf(sec, sizeof sec, "%s/scene_secret", dir);
    zcert_t *cert = zcert_new();
    cr_assert_eq(zcert_save(cert, pub), 0);   /* writes pub and pub_secret, as keygen does */
    snprintf(lone, sizeof lone, "%s/lone", dir);
    cr_assert_eq(zcert_save_public(cert, lone), 0);   /* a public certificate without its twin */
    zcert_destroy(&cert);
}

static void remove_pair(void)
{
    unlink(pub);
    unlink(sec);
    unlink(lone);
    rmdir(dir);
}

TestSuite(curve, .init = make_pair, .fini = remove_pair);

Test(curve, a_secret_certificate_loads_with_its_key)
{
    char err[TS_ERR_MAX];
    zcert_t *s = ts_curve_load(sec, true, err);
    cr_assert_not_null(s, "%s", err);
    zcert_t *p = ts_curve_load(pub, false, err);
    cr_assert_not_null(p, "%s", err);
    cr_assert_str_eq(zcert_public_txt(s), zcert_public_txt(p), "the pair's public keys agree");
    zcert_destroy(&s);
    zcert_destroy(&p);
}

Test(curve, a_public_certificate_is_not_a_secret_one)
{
    char err[TS_ERR_MAX];
    /* (zcert_load reads a file's _secret twin when there is one) */
    cr_assert_null(ts_curve_load(lone, true, err));
    cr_assert(strstr(err, "is not a readable CurveZMQ secret certificate"), "%s", err);
}

Test(curve, a_missing_file_is_a_reason)
{
    char err[TS_ERR_MAX], path[128];
    snprintf(path, sizeof path, "%s/none", dir);
    cr_assert_null(ts_curve_load(path, false, err));
    cr_assert(strstr(err, "/none' is not a readable CurveZMQ public certificate"), "%s", err);
}
