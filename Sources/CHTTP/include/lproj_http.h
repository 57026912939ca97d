#ifndef LPROJ_HTTP_H
#define LPROJ_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// A small C face of libmicrohttpd for Swift (its API is variadic): a
/// server on one address, a thread per connection, each request handed
/// over once whole (its body read and bounded), and answered with a buffer
/// or a stream.

typedef struct lproj_http_server lproj_http_server;
typedef struct lproj_http_exchange lproj_http_exchange;

/// Called once per request with its body complete. `body_too_large` is set
/// when the body went past the bound (the body is then empty). The handler
/// answers with `lproj_http_respond` or `lproj_http_respond_stream`.
typedef void (*lproj_http_handler)(void *context, lproj_http_exchange *exchange, const char *method, const char *url,
                                   const char *body, size_t body_size, int body_too_large);

/// A stream's next bytes: up to `max` into `buffer`; 0 to wait and be asked
/// again, -1 at the end of the stream.
typedef ssize_t (*lproj_http_stream_reader)(void *stream, char *buffer, size_t max);
typedef void (*lproj_http_stream_free)(void *stream);

/// Starts a server on `address` (IPv4 or IPv6 literal) and `port` (0: any
/// free one), with at most `connection_limit` connections, `per_peer` of
/// them from one peer (on loopback: one local user, by the owner of the
/// peer's socket; else one address), and `header_seconds` for a request's
/// headers to be complete, counted from the connection or the previous
/// response (a slow sender is ended then, however often it sends). NULL on
/// failure, with the reason in `error`.
lproj_http_server *lproj_http_start(const char *address, uint16_t port, size_t max_body, unsigned connection_limit,
                                    unsigned per_peer, unsigned header_seconds,
                                    lproj_http_handler handler, void *context, char *error, size_t error_size);

/// The port the server listens on.
uint16_t lproj_http_port(lproj_http_server *server);

/// Stops the server (waits for its threads).
void lproj_http_stop(lproj_http_server *server);

/// A request header's value (`Host`, `Origin`), NULL when absent.
const char *lproj_http_header(lproj_http_exchange *exchange, const char *name);

/// A query argument's value, NULL when absent.
const char *lproj_http_argument(lproj_http_exchange *exchange, const char *name);

/// A cookie's value, NULL when absent.
const char *lproj_http_cookie(lproj_http_exchange *exchange, const char *name);

/// Answers with `body` (copied); `headers` holds `count` name/value pairs.
int lproj_http_respond(lproj_http_exchange *exchange, unsigned status, const char *const *headers, size_t count,
                       const char *body, size_t body_size);

/// Answers with a stream of unknown length: `reader` is asked for bytes
/// until it says the stream ended; `release` frees `stream` afterwards.
int lproj_http_respond_stream(lproj_http_exchange *exchange, unsigned status, const char *const *headers, size_t count,
                              lproj_http_stream_reader reader, lproj_http_stream_free release, void *stream);

#endif
