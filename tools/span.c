/* tools/span.c - see span.h. */
#include "span.h"

#include <stdlib.h>
#include <string.h>

int64_t tools_span_us(const char *s)
{
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || !(v > 0) || v > TOOLS_SPAN_MAX)
        return 0;
    double unit = !*end || strcmp(end, "s") == 0 ? 1 : strcmp(end, "m") == 0 ? 60 : strcmp(end, "h") == 0 ? 3600
                : strcmp(end, "d") == 0 ? 86400 : 0;
    return (int64_t) (v * unit * 1e6);
}
