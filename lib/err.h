/* lib/err.h - the size of the error buffers the servers' functions fill.
 * A function documented "with a reason in err" writes at most TS_ERR_MAX
 * bytes, NUL included, with snprintf; callers declare char err[TS_ERR_MAX]. */
#ifndef TS_LIB_ERR_H
#define TS_LIB_ERR_H

#define TS_ERR_MAX 256

#endif
