/* proto/decoder.h - a reusable place to decode into: the array a
 * message's or an envelope's elements are kept in while its decoder reads
 * them (pack.h). Decoding allocates nothing; one per thread, and
 * ts_msg_decode and ts_env_decode without one keep theirs on the stack. */
#ifndef TS_PROTO_DECODER_H
#define TS_PROTO_DECODER_H

typedef struct ts_decoder_t ts_decoder_t;

/* Returns NULL when out of memory. */
ts_decoder_t *ts_decoder_new(void);
void ts_decoder_destroy(ts_decoder_t **self_p);

#endif
