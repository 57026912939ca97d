// Linux calls the Glibc module does not bring into Swift (they need
// _GNU_SOURCE, or use a packed struct): epoll, signalfd, accept4,
// SO_PEERCRED, timerfd. Small wrappers with plain types. And what Swift
// has no words for: a prefetch, atomics on plain memory, a thread-local word.
#ifndef LPROJ_LINUX_H
#define LPROJ_LINUX_H

#include <stdint.h>
#include <sys/types.h>

/// epoll interest bits, as plain values.
enum {
    LPROJ_POLL_IN = 0x001,
    LPROJ_POLL_OUT = 0x004,
    LPROJ_POLL_ERR = 0x008,
    LPROJ_POLL_HUP = 0x010,
    LPROJ_POLL_RDHUP = 0x2000,
    /// Reported once, then disabled until changed again (EPOLLONESHOT).
    LPROJ_POLL_ONESHOT = 0x40000000,
};

int lproj_epoll_create(void);
/// Adds (add != 0) or changes the interest in fd; the event reports fd itself.
int lproj_epoll_control(int epoll, int fd, uint32_t events, int add);
int lproj_epoll_remove(int epoll, int fd);
/// Waits; fills fds[i] and events[i]; returns the count or -1.
int lproj_epoll_wait(int epoll, int *fds, uint32_t *events, int capacity, int timeout_ms);

/// The POSIX access ACL of path (links followed), as the kernel stores it
/// (system.posix_acl_access): its length, 0 when there is none (or the
/// file system keeps none), -1 on another error.
long lproj_access_acl(const char *path, void *buffer, unsigned long size);

/// A non-blocking, close-on-exec signalfd for SIGTERM, SIGINT and SIGHUP (block them first).
int lproj_signalfd_term(void);
/// Reads one signal from a signalfd: its number, 0 when none is pending.
int lproj_signalfd_read(int fd);

/// A non-blocking, close-on-exec eventfd (a wake-up another thread writes to).
int lproj_eventfd(void);

/// A non-blocking, close-on-exec one-shot timer (CLOCK_MONOTONIC timerfd).
int lproj_timer_create(void);
/// Arms the timer to fire once after `nanoseconds` (at least 1); 0 disarms it.
int lproj_timer_arm(int fd, int64_t nanoseconds);
/// Reads the timer's expirations (so it is no longer readable).
void lproj_timer_drain(int fd);

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int lproj_accept(int listener);
/// The peer of a Unix socket (SO_PEERCRED). Returns 0 on success.
int lproj_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid);

/// The supplementary groups the peer had when it connected (SO_PEERGROUPS):
/// up to `capacity` into `groups`. Returns how many it had (more than
/// `capacity`: call again with room for them), or -1 with errno set.
int lproj_peer_groups(int fd, uint32_t *groups, int capacity);

/// getdents64(2): the next entries of the directory open as `fd`, as
/// struct linux_dirent64 records in `buffer`; bytes filled, 0 at the end,
/// -1 with errno on error.
long lproj_getdents(int fd, void *buffer, size_t size);

/// statfs(2)'s f_type (the filesystem's magic number) for `path`, in
/// `type`. Returns 0 on success, -1 with errno.
int lproj_filesystem_type(const char *path, uint64_t *type);

/// Returns freed heap memory to the system (glibc's malloc_trim(0)).
void lproj_release_free_memory(void);
/// Fixes glibc's mmap threshold at its default (128 KiB) instead of letting
/// it rise each time a large block is freed: every block that large is then
/// mapped and unmapped, never left in the heap (see the .c).
void lproj_fix_mmap_threshold(void);
/// Grows this thread's malloc arena by `bytes` at once and keeps it from
/// being trimmed (see the .c); returns what to pass to
/// lproj_release_thread_heap when the thread is done.
void *lproj_prepare_thread_heap(size_t bytes);
/// Ends lproj_prepare_thread_heap's hold: what was not used is trimmed.
void lproj_release_thread_heap(void *top);

/// Most descriptors one message carries (the kernel's SCM_MAX_FD is 253).
enum { LPROJ_MAX_DESCRIPTORS = 250 };
/// A memory file (memfd) named `name` holding `count` bytes, sealed so
/// that nobody, its maker included, can ever write, shrink or grow it.
/// The descriptor (close-on-exec), or -1 with errno.
int lproj_sealed_memory_file(const char *name, const void *bytes, size_t count);
/// Whether `fd` is a memory file sealed against writes, shrinking and
/// growth (1), or not (0); its size in `size`. -1 with errno on failure.
int lproj_is_sealed_memory_file(int fd, uint64_t *size);
/// send() of `bytes` without blocking or SIGPIPE: the bytes written
/// (possibly fewer), or -1 with errno.
long lproj_send_now(int socket, const void *bytes, size_t count);
/// send() of `bytes` on a Unix socket with `fd_count` (at most
/// LPROJ_MAX_DESCRIPTORS) descriptors attached: the bytes written, or -1 with errno.
long lproj_send_with_descriptors(int socket, const void *bytes, size_t count, const int *fds, int fd_count);
/// recv() that also takes the descriptors attached (close-on-exec) into
/// `fds` (room for `capacity`; those past it are closed by the kernel),
/// their number in `*fd_count`. The bytes read, or -1 with errno.
long lproj_receive_with_descriptors(int socket, void *bytes, size_t size, int *fds, int capacity, int *fd_count);
/// Bytes written to the stream socket `socket` that its peer has not read
/// yet (SIOCOUTQ): 0 means every descriptor sent with them was received.
/// -1 with errno on failure.
long lproj_unread_bytes(int socket);

/// Asks for the cache line at `address` to be loaded for writing, without
/// waiting for it (a hint: never faults).
static inline void lproj_prefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// What this thread holds of each bundle (LprojClient's ThreadHolds), or
/// NULL: a thread-local word read without a call (initial-exec: for a
/// library linked into the program; glibc keeps room for a few such words
/// in libraries opened later).
extern __thread void *lproj_thread_holds __attribute__((tls_model("initial-exec")));

static inline void *lproj_thread_holds_get(void) {
    return lproj_thread_holds;
}

static inline void lproj_thread_holds_set(void *holds) {
    lproj_thread_holds = holds;
}

/// A 64-bit word read with acquire order: what was written before the
/// matching release store is seen after it (a table read without a lock
/// while one writer fills it).
static inline uint64_t lproj_load_acquire(const uint64_t *address) {
    return __atomic_load_n(address, __ATOMIC_ACQUIRE);
}

/// A 64-bit word written with release order (see lproj_load_acquire).
static inline void lproj_store_release(uint64_t *address, uint64_t value) {
    __atomic_store_n(address, value, __ATOMIC_RELEASE);
}

/// Lowers the calling thread's own scheduling priority to `nice` (its
/// nice value: 0 to 19; a thread may raise its nice value, not lower it
/// again). 0 on success, else -1 with errno set.
int lproj_lower_thread_priority(int nice);

/// Runs body(context) on a new detached thread named `name` (at most 15
/// bytes kept), with the process's default stack; 0, or pthread_create's error.
int lproj_start_thread(void (*body)(void *), void *context, const char *name);

#endif
