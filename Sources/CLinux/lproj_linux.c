#define _GNU_SOURCE
#include <errno.h>
#include "lproj_linux.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

int lproj_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int lproj_epoll_control(int epoll, int fd, uint32_t events, int add) {
    struct epoll_event event = { .events = events, .data = { .fd = fd } };
    return epoll_ctl(epoll, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event);
}

int lproj_epoll_remove(int epoll, int fd) { return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL); }

int lproj_epoll_wait(int epoll, int *fds, uint32_t *events, int capacity, int timeout_ms) {
    struct epoll_event ready[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, ready, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        fds[i] = ready[i].data.fd;
        events[i] = ready[i].events;
    }
    return count;
}


int lproj_signalfd_term(void) {
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    return signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

int lproj_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t count = read(fd, &info, sizeof info);
    return count == (ssize_t)sizeof info ? (int)info.ssi_signo : 0;
}

int lproj_timer_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

int lproj_timer_arm(int fd, int64_t nanoseconds) {
    struct itimerspec when = { 0 };
    if (nanoseconds > 0) {
        when.it_value.tv_sec = nanoseconds / 1000000000;
        when.it_value.tv_nsec = nanoseconds % 1000000000;
    }
    return timerfd_settime(fd, 0, &when, NULL);
}

void lproj_timer_drain(int fd) {
    uint64_t expirations;
    (void)read(fd, &expirations, sizeof expirations);
}

int lproj_accept(int listener) { return accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int lproj_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int lproj_peer_groups(int fd, uint32_t *groups, int capacity) {
    socklen_t length = (socklen_t)(capacity * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) == 0) return (int)(length / sizeof(gid_t));
    if (errno == ERANGE) return (int)(length / sizeof(gid_t));
    return -1;
}

long lproj_getdents(int fd, void *buffer, size_t size) { return syscall(SYS_getdents64, fd, buffer, size); }

void lproj_release_free_memory(void) { malloc_trim(0); }

/* glibc raises the mmap threshold to the size of each mapped block freed
   (up to 32 MiB), so that after the first large event leaves the history
   the next ones come from the heap, whose holes the churn of a full
   history never gives back: 64 MiB of events held 100 MiB. Setting the
   threshold turns that off. */
void lproj_fix_mmap_threshold(void) { mallopt(M_MMAP_THRESHOLD, 128 << 10); }

/* glibc grows a thread's arena (not the main one) page by page, one
   mprotect each, and trims it whenever its top is free: a thread that
   keeps what it allocates then grows it again, page by page. Allocating
   `bytes` in chunks grows the arena once. All but the topmost chunk are
   freed: they join into one free block below it, which malloc hands out
   from, and nothing is trimmed while the top chunk is held.
   `lproj_release_thread_heap` frees that one; the trim then gives back
   what was not used. (The pages are not touched here: faulting 32 MiB in
   up front, with MADV_POPULATE_WRITE, saved little on a big tree and cost
   a small one 30 ms.) */
void *lproj_prepare_thread_heap(size_t bytes) {
    /* Below the mmap threshold (128 KiB), so that the arena serves them. */
    enum { chunk = 120 << 10 };
    size_t count = bytes / chunk;
    if (count == 0) return NULL;
    void **chunks = malloc(count * sizeof(void *));
    if (chunks == NULL) return NULL;
    for (size_t index = 0; index < count; index++) chunks[index] = malloc(chunk);
    /* The topmost chunk is the last one that the arena served. */
    void *top = chunks[count - 1];
    for (size_t index = 0; index + 1 < count; index++) free(chunks[index]);
    free(chunks);
    return top;
}

void lproj_release_thread_heap(void *top) { free(top); }

int lproj_filesystem_type(const char *path, uint64_t *type) {
    struct statfs info;
    if (statfs(path, &info) != 0) return -1;
    *type = (uint64_t)(unsigned long)info.f_type & 0xFFFFFFFFu;
    return 0;
}

int lproj_sealed_memory_file(const char *name, const void *bytes, size_t count) {
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    const char *next = bytes;
    size_t left = count;
    while (left > 0) {
        ssize_t written = write(fd, next, left);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) { int saved = errno; close(fd); errno = saved ? saved : EIO; return -1; }
        next += written;
        left -= (size_t)written;
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int lproj_is_sealed_memory_file(int fd, uint64_t *size) {
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0) return errno == EINVAL ? 0 : -1;
    struct stat info;
    if (fstat(fd, &info) != 0) return -1;
    *size = (uint64_t)info.st_size;
    int needed = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
    return (seals & needed) == needed && S_ISREG(info.st_mode);
}

long lproj_send_now(int socket, const void *bytes, size_t count) {
    return send(socket, bytes, count, MSG_NOSIGNAL | MSG_DONTWAIT);
}

long lproj_send_with_descriptors(int socket, const void *bytes, size_t count, const int *fds, int fd_count) {
    if (fd_count < 0 || fd_count > LPROJ_MAX_DESCRIPTORS) { errno = EINVAL; return -1; }
    struct iovec vector = { .iov_base = (void *)bytes, .iov_len = count };
    union { char buffer[CMSG_SPACE(sizeof(int) * LPROJ_MAX_DESCRIPTORS)]; struct cmsghdr align; } control;
    struct msghdr message = { .msg_iov = &vector, .msg_iovlen = 1 };
    if (fd_count > 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.buffer;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)fd_count);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)fd_count);
        memcpy(CMSG_DATA(header), fds, sizeof(int) * (size_t)fd_count);
    }
    return sendmsg(socket, &message, MSG_NOSIGNAL);
}

long lproj_unread_bytes(int socket) {
    int count = 0;
    if (ioctl(socket, SIOCOUTQ, &count) != 0) return -1;
    return count;
}

long lproj_receive_with_descriptors(int socket, void *bytes, size_t size, int *fds, int capacity, int *fd_count) {
    struct iovec vector = { .iov_base = bytes, .iov_len = size };
    union { char buffer[CMSG_SPACE(sizeof(int) * 256)]; struct cmsghdr align; } control;
    struct msghdr message = { .msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof control.buffer };
    *fd_count = 0;
    ssize_t count = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    if (count < 0) return -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t received = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int *incoming = (int *)CMSG_DATA(header);
        for (size_t index = 0; index < received; index++) {
            if (*fd_count < capacity) fds[(*fd_count)++] = incoming[index];
            else close(incoming[index]);
        }
    }
    return count;
}

__thread void *lproj_thread_holds;

long lproj_access_acl(const char *path, void *buffer, unsigned long size) {
    ssize_t length = getxattr(path, "system.posix_acl_access", buffer, size);
    if (length < 0 && (errno == ENODATA || errno == ENOTSUP)) return 0;
    return (long)length;
}

int lproj_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

struct lproj_thread_start {
    void (*body)(void *);
    void *context;
    char name[16];
};

static void *lproj_thread_main(void *argument) {
    struct lproj_thread_start start = *(struct lproj_thread_start *)argument;
    free(argument);
    // Named here, by the thread itself: the starting thread pays only for the clone.
    if (start.name[0]) pthread_setname_np(pthread_self(), start.name);
    start.body(start.context);
    return NULL;
}

int lproj_start_thread(void (*body)(void *), void *context, const char *name) {
    struct lproj_thread_start *start = malloc(sizeof *start);
    if (!start) return ENOMEM;
    start->body = body;
    start->context = context;
    snprintf(start->name, sizeof start->name, "%s", name ? name : "");
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    int failed = pthread_create(&thread, &attributes, lproj_thread_main, start);
    pthread_attr_destroy(&attributes);
    if (failed) free(start);
    return failed;
}

int lproj_lower_thread_priority(int nice) {
    // On Linux a priority set for a thread id is that thread's alone.
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}
