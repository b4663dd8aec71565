#ifndef C_EMULATOR_LINUX_H
#define C_EMULATOR_LINUX_H
// What Glibc's Swift overlay does not export: epoll, eventfd, accept4, MSG_NOSIGNAL, TCP_NODELAY,
// the compiler's prefetch hint (for the storage engine's tree searches) and the JSON string scan.
// The header only uses <stdint.h> types so it never redefines what SwiftGlibc already imports;
// the system headers are included in shim.c. `struct epoll_event` is packed on x86_64, so events
// cross into Swift as the plain `cemu_event` below.
#include <stdint.h>

/// One readiness report: the epoll event bits and the 64-bit token registered with the fd.
typedef struct {
    uint32_t events;
    uint64_t token;
} cemu_event;

extern const uint32_t CEMU_EPOLLIN;
extern const uint32_t CEMU_EPOLLOUT;
extern const uint32_t CEMU_EPOLLERR;
extern const uint32_t CEMU_EPOLLHUP;
extern const uint32_t CEMU_EPOLLRDHUP;
extern const uint32_t CEMU_EPOLLET;
extern const int CEMU_EPOLL_CTL_ADD;
extern const int CEMU_EPOLL_CTL_MOD;
extern const int CEMU_EPOLL_CTL_DEL;
/// open(2)'s O_DIRECT (needs _GNU_SOURCE, so Glibc's overlay lacks it; its value differs by architecture).
extern const int CEMU_O_DIRECT;

/// Starts loading the cache line holding `address` for a read soon (a hint: never faults, so
/// any address will do).
static inline void cemu_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/// Accepts one connection as non-blocking and close-on-exec (accept4); -1 and errno on failure.
int cemu_accept_nonblocking(int fd);
/// epoll_create1(EPOLL_CLOEXEC).
int cemu_epoll_create(void);
/// epoll_ctl with the token stored in `data.u64`.
int cemu_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);
/// Waits for up to `capacity` events (at most 256 per call) and copies them into `out`.
int cemu_epoll_wait(int epfd, cemu_event *out, int capacity, int timeout_ms);
/// A non-blocking, close-on-exec eventfd.
int cemu_eventfd(void);
/// A non-blocking, close-on-exec TCP socket for AF_INET or AF_INET6.
int cemu_socket_nonblocking(int domain);
int cemu_set_nodelay(int fd);
int cemu_set_reuseaddr(int fd);
int cemu_set_v6only(int fd);
/// `send` with MSG_NOSIGNAL: never raises SIGPIPE when the peer has gone.
long cemu_send(int fd, const void *bytes, unsigned long count);
int cemu_errno(void);
/// How many CPUs this thread may run on (sched_getaffinity: a `taskset` or container cpuset
/// counts, unlike the online count); -1 on failure.
int cemu_available_cpus(void);
/// CRC-32C (Castagnoli) of `length` bytes at `data`, continuing `crc` (0 to start; unmasked).
/// Uses the SSE4.2 `crc32` instruction when the CPU has it, else a bitwise loop.
uint32_t cemu_crc32c(uint32_t crc, const uint8_t *data, uint64_t length);
/// The index of the first byte of `bytes[start..<end]` that a JSON string must escape (`"`, `\`,
/// a control byte below 0x20) or, when `stop_at_non_ascii` is nonzero, any byte from 0x80 up;
/// `end` when there is none. SSE2 on x86_64 (16 bytes a step), a byte loop elsewhere.
uint64_t cemu_json_plain_prefix(const uint8_t *bytes, uint64_t start, uint64_t end, int stop_at_non_ascii);

#endif
