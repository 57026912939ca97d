#include "lproj_http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lproj_http_server {
    struct MHD_Daemon *daemon;
    lproj_http_handler handler;
    void *context;
    size_t max_body;
};

struct lproj_http_exchange {
    struct MHD_Connection *connection;
    char *body;
    size_t size;
    int too_large;
    int answered;
};

static enum MHD_Result lproj_access(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                    const char *version, const char *upload_data, size_t *upload_data_size, void **request) {
    (void)version;
    struct lproj_http_server *server = cls;
    struct lproj_http_exchange *exchange = *request;
    if (exchange == NULL) {
        // The headers: state for the body to come.
        exchange = calloc(1, sizeof *exchange);
        if (exchange == NULL) return MHD_NO;
        exchange->connection = connection;
        const char *length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (length != NULL && strtoull(length, NULL, 10) > server->max_body) exchange->too_large = 1;
        *request = exchange;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        // More of the body: kept up to the bound, the rest read and dropped.
        if (!exchange->too_large && exchange->size + *upload_data_size <= server->max_body) {
            char *grown = realloc(exchange->body, exchange->size + *upload_data_size + 1);
            if (grown == NULL) return MHD_NO;
            exchange->body = grown;
            memcpy(exchange->body + exchange->size, upload_data, *upload_data_size);
            exchange->size += *upload_data_size;
            exchange->body[exchange->size] = 0;
        } else {
            exchange->too_large = 1;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (exchange->answered) return MHD_YES;
    exchange->answered = 1;
    server->handler(server->context, exchange, method, url, exchange->too_large ? "" : (exchange->body ? exchange->body : ""),
                    exchange->too_large ? 0 : exchange->size, exchange->too_large);
    return MHD_YES;
}

static void lproj_completed(void *cls, struct MHD_Connection *connection, void **request, enum MHD_RequestTerminationCode code) {
    (void)cls; (void)connection; (void)code;
    struct lproj_http_exchange *exchange = *request;
    if (exchange == NULL) return;
    free(exchange->body);
    free(exchange);
    *request = NULL;
}

lproj_http_server *lproj_http_start(const char *address, uint16_t port, size_t max_body, unsigned connection_limit,
                                    lproj_http_handler handler, void *context, char *error, size_t error_size) {
    struct sockaddr_storage storage;
    memset(&storage, 0, sizeof storage);
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
    struct sockaddr_in *ipv4 = (struct sockaddr_in *)&storage;
    struct sockaddr_in6 *ipv6 = (struct sockaddr_in6 *)&storage;
    if (inet_pton(AF_INET, address, &ipv4->sin_addr) == 1) {
        ipv4->sin_family = AF_INET;
        ipv4->sin_port = htons(port);
    } else if (inet_pton(AF_INET6, address, &ipv6->sin6_addr) == 1) {
        ipv6->sin6_family = AF_INET6;
        ipv6->sin6_port = htons(port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(error, error_size, "'%s' is not an IPv4 or IPv6 address", address);
        return NULL;
    }
    struct lproj_http_server *server = calloc(1, sizeof *server);
    if (server == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    server->handler = handler;
    server->context = context;
    server->max_body = max_body;
    server->daemon = MHD_start_daemon(flags, port, NULL, NULL, lproj_access, server,
                                      MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&storage,
                                      MHD_OPTION_NOTIFY_COMPLETED, lproj_completed, NULL,
                                      MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
                                      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
                                      MHD_OPTION_END);
    if (server->daemon == NULL) {
        snprintf(error, error_size, "cannot listen on %s port %u (in use, or not an address of this machine)", address, (unsigned)port);
        free(server);
        return NULL;
    }
    return server;
}

uint16_t lproj_http_port(lproj_http_server *server) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

void lproj_http_stop(lproj_http_server *server) {
    if (server == NULL) return;
    MHD_stop_daemon(server->daemon);
    free(server);
}

const char *lproj_http_header(lproj_http_exchange *exchange, const char *name) {
    return MHD_lookup_connection_value(exchange->connection, MHD_HEADER_KIND, name);
}

const char *lproj_http_argument(lproj_http_exchange *exchange, const char *name) {
    return MHD_lookup_connection_value(exchange->connection, MHD_GET_ARGUMENT_KIND, name);
}

const char *lproj_http_cookie(lproj_http_exchange *exchange, const char *name) {
    return MHD_lookup_connection_value(exchange->connection, MHD_COOKIE_KIND, name);
}

static int lproj_queue(lproj_http_exchange *exchange, unsigned status, const char *const *headers, size_t count, struct MHD_Response *response) {
    if (response == NULL) return 0;
    for (size_t index = 0; index + 1 < count * 2; index += 2) {
        MHD_add_response_header(response, headers[index], headers[index + 1]);
    }
    enum MHD_Result queued = MHD_queue_response(exchange->connection, status, response);
    MHD_destroy_response(response);
    return queued == MHD_YES;
}

int lproj_http_respond(lproj_http_exchange *exchange, unsigned status, const char *const *headers, size_t count,
                       const char *body, size_t body_size) {
    struct MHD_Response *response = MHD_create_response_from_buffer(body_size, (void *)body, MHD_RESPMEM_MUST_COPY);
    return lproj_queue(exchange, status, headers, count, response);
}

struct lproj_stream {
    lproj_http_stream_reader reader;
    lproj_http_stream_free release;
    void *stream;
};

static ssize_t lproj_stream_read(void *cls, uint64_t position, char *buffer, size_t max) {
    (void)position;
    struct lproj_stream *stream = cls;
    ssize_t count = stream->reader(stream->stream, buffer, max);
    return count < 0 ? MHD_CONTENT_READER_END_OF_STREAM : count;
}

static void lproj_stream_free(void *cls) {
    struct lproj_stream *stream = cls;
    stream->release(stream->stream);
    free(stream);
}

int lproj_http_respond_stream(lproj_http_exchange *exchange, unsigned status, const char *const *headers, size_t count,
                              lproj_http_stream_reader reader, lproj_http_stream_free release, void *stream) {
    struct lproj_stream *state = malloc(sizeof *state);
    if (state == NULL) return 0;
    state->reader = reader;
    state->release = release;
    state->stream = stream;
    struct MHD_Response *response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, lproj_stream_read, state, lproj_stream_free);
    if (response == NULL) {
        release(stream);
        free(state);
        return 0;
    }
    return lproj_queue(exchange, status, headers, count, response);
}
