/* proto/decoder.h - a reusable place to decode into: the msgpack zone that
 * message and envelope decoding unpack into, kept (and cleared) between
 * messages, so a busy loop allocates nothing per message. One per thread;
 * ts_msg_decode and ts_env_decode without one make a zone per call. */
#ifndef TS_PROTO_DECODER_H
#define TS_PROTO_DECODER_H

typedef struct ts_decoder_t ts_decoder_t;

/* Returns NULL when out of memory. */
ts_decoder_t *ts_decoder_new(void);
void ts_decoder_destroy(ts_decoder_t **self_p);

#endif
