#ifndef C_EMULATOR_LINUX_H
#define C_EMULATOR_LINUX_H
// What Glibc's Swift overlay does not export: epoll, eventfd, accept4.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

static inline int cemu_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}
#endif
