/* tools/span.h - a span of time as operators write it on the command line
 * and in the dashboard's queries: "90s", "30m", "2h", "7d", or plain
 * seconds. */
#ifndef TOOLS_SPAN_H
#define TOOLS_SPAN_H

#include <stdint.h>

#define TOOLS_SPAN_MAX 1e6   /* units at most: a million days still fits in int64 µs */

/* The span in µs; 0 when s is not one (no number, not above 0, more than
 * TOOLS_SPAN_MAX units, another unit). */
int64_t tools_span_us(const char *s);

#endif
