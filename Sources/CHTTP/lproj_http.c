#include "lproj_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/// One open connection as the guard sees it: who is on the other end, and
/// by when its request's headers must be complete (0: none is awaited).
struct lproj_http_link {
    struct lproj_http_link *next, *previous;
    /// A duplicate of the connection's socket, so that ending it from the
    /// guard's thread can never reach a descriptor number reused meanwhile.
    int socket;
    char peer[64];
    struct timespec deadline;
    int awaiting;
};

struct lproj_http_server {
    struct MHD_Daemon *daemon;
    lproj_http_handler handler;
    void *context;
    size_t max_body;
    unsigned header_seconds;
    unsigned per_peer;
    uint16_t port;
    /// The open connections, and the guard that ends those past their deadline.
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t guard;
    int guarding;
    int stopping;
    struct lproj_http_link *links;
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
        // The headers are complete: the guard's deadline is over for this request.
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        if (info != NULL && info->socket_context != NULL) {
            struct lproj_http_link *link = info->socket_context;
            pthread_mutex_lock(&server->lock);
            link->awaiting = 0;
            pthread_mutex_unlock(&server->lock);
        }
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

/// Starts the deadline for the headers of `link`'s next request (with the lock held).
static void lproj_await_headers(struct lproj_http_server *server, struct lproj_http_link *link) {
    clock_gettime(CLOCK_MONOTONIC, &link->deadline);
    link->deadline.tv_sec += server->header_seconds;
    link->awaiting = 1;
    pthread_cond_signal(&server->wake);
}

static void lproj_completed(void *cls, struct MHD_Connection *connection, void **request, enum MHD_RequestTerminationCode code) {
    (void)code;
    struct lproj_http_server *server = cls;
    // A kept-alive connection's next request has the same time for its headers.
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (info != NULL && info->socket_context != NULL) {
        pthread_mutex_lock(&server->lock);
        lproj_await_headers(server, info->socket_context);
        pthread_mutex_unlock(&server->lock);
    }
    struct lproj_http_exchange *exchange = *request;
    if (exchange == NULL) return;
    free(exchange->body);
    free(exchange);
    *request = NULL;
}

/// Who is on the other end of a connection from `address`: on loopback,
/// the user that owns the peer's socket (`uid:N`, from /proc/net/tcp or
/// tcp6, whose line for the peer's end names it), so that every local user
/// is a peer of its own; else the address itself.
static void lproj_peer_name(const struct sockaddr *address, uint16_t server_port, char *name, size_t size) {
    char wanted[80] = "", remote[80] = "";
    const char *table = NULL;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *ipv4 = (const struct sockaddr_in *)address;
        inet_ntop(AF_INET, &ipv4->sin_addr, name, (socklen_t)size);
        if ((ntohl(ipv4->sin_addr.s_addr) >> 24) == 127) {
            table = "/proc/net/tcp";
            snprintf(wanted, sizeof wanted, "%08X:%04X", (unsigned)ipv4->sin_addr.s_addr, (unsigned)ntohs(ipv4->sin_port));
            snprintf(remote, sizeof remote, ":%04X", (unsigned)server_port);
        }
    } else if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *ipv6 = (const struct sockaddr_in6 *)address;
        inet_ntop(AF_INET6, &ipv6->sin6_addr, name, (socklen_t)size);
        const uint32_t *words = (const uint32_t *)&ipv6->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(&ipv6->sin6_addr) || IN6_IS_ADDR_V4MAPPED(&ipv6->sin6_addr)) {
            table = "/proc/net/tcp6";
            snprintf(wanted, sizeof wanted, "%08X%08X%08X%08X:%04X", (unsigned)words[0], (unsigned)words[1], (unsigned)words[2],
                     (unsigned)words[3], (unsigned)ntohs(ipv6->sin6_port));
            snprintf(remote, sizeof remote, ":%04X", (unsigned)server_port);
        }
    } else {
        snprintf(name, size, "unknown");
    }
    if (table == NULL) return;
    FILE *file = fopen(table, "re");
    if (file == NULL) return;
    char line[512];
    while (fgets(line, sizeof line, file) != NULL) {
        char local[80], peer[80];
        unsigned state;
        unsigned long uid;
        // "sl local rem st tx:rx tr:when retrnsmt uid ...": the line whose local end is the peer's, connected to this port.
        if (sscanf(line, " %*s %79s %79s %x %*s %*s %*s %lu", local, peer, &state, &uid) != 4) continue;
        size_t tail = strlen(remote), length = strlen(peer);
        if (strcmp(local, wanted) == 0 && length >= tail && strcmp(peer + length - tail, remote) == 0) {
            snprintf(name, size, "uid:%lu", uid);
            break;
        }
    }
    fclose(file);
}

/// Counts and watches each connection: past `per_peer` connections of
/// one peer, the new one is ended at once; a request whose headers are
/// not complete within `header_seconds` (a slow sender, one line at a
/// time) is ended at its deadline, however often it sends.
static void lproj_connection(void *cls, struct MHD_Connection *connection, void **context, enum MHD_ConnectionNotificationCode code) {
    struct lproj_http_server *server = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *descriptor = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *address = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        struct lproj_http_link *link = calloc(1, sizeof *link);
        if (link == NULL || descriptor == NULL || address == NULL) {
            free(link);
            return;
        }
        link->socket = fcntl(descriptor->connect_fd, F_DUPFD_CLOEXEC, 0);
        lproj_peer_name(address->client_addr, server->port, link->peer, sizeof link->peer);
        pthread_mutex_lock(&server->lock);
        unsigned same = 0;
        for (struct lproj_http_link *other = server->links; other != NULL; other = other->next) {
            if (strcmp(other->peer, link->peer) == 0) same++;
        }
        link->next = server->links;
        if (server->links != NULL) server->links->previous = link;
        server->links = link;
        lproj_await_headers(server, link);
        if (same >= server->per_peer && link->socket >= 0) shutdown(link->socket, SHUT_RDWR);
        pthread_mutex_unlock(&server->lock);
        *context = link;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        struct lproj_http_link *link = *context;
        if (link == NULL) return;
        pthread_mutex_lock(&server->lock);
        if (link->previous != NULL) link->previous->next = link->next; else server->links = link->next;
        if (link->next != NULL) link->next->previous = link->previous;
        pthread_mutex_unlock(&server->lock);
        if (link->socket >= 0) close(link->socket);
        free(link);
        *context = NULL;
    }
}

static int lproj_before(const struct timespec *a, const struct timespec *b) {
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/// The guard's thread: ends each connection whose headers are late, and
/// sleeps until the next deadline (or a new one).
static void *lproj_guard(void *cls) {
    struct lproj_http_server *server = cls;
    pthread_mutex_lock(&server->lock);
    while (!server->stopping) {
        struct timespec now, next;
        clock_gettime(CLOCK_MONOTONIC, &now);
        next = now;
        next.tv_sec += 60;
        for (struct lproj_http_link *link = server->links; link != NULL; link = link->next) {
            if (!link->awaiting) continue;
            if (!lproj_before(&now, &link->deadline)) {
                link->awaiting = 0;
                if (link->socket >= 0) shutdown(link->socket, SHUT_RDWR);
            } else if (lproj_before(&link->deadline, &next)) {
                next = link->deadline;
            }
        }
        pthread_cond_timedwait(&server->wake, &server->lock, &next);
    }
    pthread_mutex_unlock(&server->lock);
    return NULL;
}

lproj_http_server *lproj_http_start(const char *address, uint16_t port, size_t max_body, unsigned connection_limit,
                                    unsigned per_peer, unsigned header_seconds,
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
    server->header_seconds = header_seconds;
    server->per_peer = per_peer == 0 ? 1 : per_peer;
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&server->wake, &attributes);
    pthread_condattr_destroy(&attributes);
    pthread_mutex_init(&server->lock, NULL);
    server->daemon = MHD_start_daemon(flags, port, NULL, NULL, lproj_access, server,
                                      MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&storage,
                                      MHD_OPTION_NOTIFY_COMPLETED, lproj_completed, server,
                                      MHD_OPTION_NOTIFY_CONNECTION, lproj_connection, server,
                                      MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
                                      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
                                      MHD_OPTION_END);
    if (server->daemon == NULL) {
        snprintf(error, error_size, "cannot listen on %s port %u (in use, or not an address of this machine)", address, (unsigned)port);
        free(server);
        return NULL;
    }
    const union MHD_DaemonInfo *bound = MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    server->port = bound == NULL ? port : bound->port;
    if (pthread_create(&server->guard, NULL, lproj_guard, server) != 0) {
        snprintf(error, error_size, "cannot start the connection guard: %s", strerror(errno));
        MHD_stop_daemon(server->daemon);
        free(server);
        return NULL;
    }
    server->guarding = 1;
    return server;
}

uint16_t lproj_http_port(lproj_http_server *server) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

void lproj_http_stop(lproj_http_server *server) {
    if (server == NULL) return;
    MHD_stop_daemon(server->daemon);
    if (server->guarding) {
        pthread_mutex_lock(&server->lock);
        server->stopping = 1;
        pthread_cond_signal(&server->wake);
        pthread_mutex_unlock(&server->lock);
        pthread_join(server->guard, NULL);
    }
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
