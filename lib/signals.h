/* lib/signals.h - how every ticksync process stops: SIGTERM and SIGINT are
 * blocked everywhere and read from a signalfd by the one loop that owns
 * shutdown. */
#ifndef TS_LIB_SIGNALS_H
#define TS_LIB_SIGNALS_H

/* Blocks SIGTERM and SIGINT in the calling thread and every thread it starts
 * afterwards, and ignores SIGPIPE. Call first thing in main. */
void ts_signals_block(void);

/* A non-blocking signalfd for SIGTERM and SIGINT, or -1. */
int ts_signals_fd(void);

#endif
