/* lib/clock.h - the two clocks of PROTOCOL.md "Clocks and units", in
 * microseconds. Real time is for timestamps handed to clients; monotonic
 * time is for every interval the server measures itself. */
#ifndef TS_LIB_CLOCK_H
#define TS_LIB_CLOCK_H

#include <stdint.h>

int64_t ts_clock_real_us(void);   /* since the Unix epoch */
int64_t ts_clock_mono_us(void);   /* since an arbitrary point, never steps */

#endif
