#define _GNU_SOURCE
#include "CEmulatorLinux.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

const uint32_t CEMU_EPOLLIN = EPOLLIN;
const uint32_t CEMU_EPOLLOUT = EPOLLOUT;
const uint32_t CEMU_EPOLLERR = EPOLLERR;
const uint32_t CEMU_EPOLLHUP = EPOLLHUP;
const uint32_t CEMU_EPOLLRDHUP = EPOLLRDHUP;
const uint32_t CEMU_EPOLLET = EPOLLET;
const int CEMU_EPOLL_CTL_ADD = EPOLL_CTL_ADD;
const int CEMU_EPOLL_CTL_MOD = EPOLL_CTL_MOD;
const int CEMU_EPOLL_CTL_DEL = EPOLL_CTL_DEL;
const int CEMU_O_DIRECT = O_DIRECT;

int cemu_accept_nonblocking(int fd) {
    return accept4(fd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int cemu_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int cemu_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &event);
}

int cemu_epoll_wait(int epfd, cemu_event *out, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int n = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < n; i++) {
        out[i].events = events[i].events;
        out[i].token = events[i].data.u64;
    }
    return n;
}

int cemu_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int cemu_socket_nonblocking(int domain) {
    return socket(domain, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

static int set_int_option(int fd, int level, int name, int value) {
    return setsockopt(fd, level, name, &value, sizeof(value));
}

int cemu_set_nodelay(int fd) {
    return set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, 1);
}

int cemu_set_reuseaddr(int fd) {
    return set_int_option(fd, SOL_SOCKET, SO_REUSEADDR, 1);
}

int cemu_set_v6only(int fd) {
    return set_int_option(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
}

long cemu_send(int fd, const void *bytes, unsigned long count) {
    return send(fd, bytes, count, MSG_NOSIGNAL);
}

int cemu_errno(void) {
    return errno;
}

int cemu_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    return CPU_COUNT(&set);
}

// CRC-32C for snapshot and journal files (LevelDB log records).
#include <string.h>
#if defined(__x86_64__)
#include <nmmintrin.h>
__attribute__((target("sse4.2"))) static uint32_t crc32c_hardware(uint32_t crc, const uint8_t *data, uint64_t length) {
    uint64_t c = (uint32_t)~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, data, 8);
        c = _mm_crc32_u64(c, word);
        data += 8;
        length -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (length > 0) {
        c32 = _mm_crc32_u8(c32, *data++);
        length--;
    }
    return ~c32;
}
#endif

static uint32_t crc32c_software(uint32_t crc, const uint8_t *data, uint64_t length) {
    uint32_t c = ~crc;
    while (length-- > 0) {
        c ^= *data++;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return ~c;
}

uint32_t cemu_crc32c(uint32_t crc, const uint8_t *data, uint64_t length) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2")) return crc32c_hardware(crc, data, length);
#endif
    return crc32c_software(crc, data, length);
}

// JSON string scans for EmulatorSupport's JSONStringScan: a 1 KB string value is most of a
// document's request and answer, and SSE2 (on every x86_64 CPU) looks at 32 bytes per step
// where the portable Swift loop looks at 8, with several times the instructions.
#if defined(__x86_64__)
#include <emmintrin.h>

/// Bytes a JSON string must escape: `"`, `\\`, and (unsigned) below 0x20.
static inline __m128i json_escape_bytes(__m128i v) {
    __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    // An unsigned byte b is at most 0x1F exactly when min(b, 0x1F) == b.
    return _mm_or_si128(hit, _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v));
}

/// Those and every byte from 0x80: as signed bytes, 0x80...0xFF are negative, so one signed
/// "less than 0x20" takes both the controls and the non-ASCII bytes.
static inline __m128i json_attention_bytes(__m128i v) {
    __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    return _mm_or_si128(hit, _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
}

#define JSON_SCAN(HITS)                                                                          \
    while (i + 32 <= end) {                                                                      \
        __m128i a = HITS(_mm_loadu_si128((const __m128i *)(bytes + i)));                         \
        __m128i b = HITS(_mm_loadu_si128((const __m128i *)(bytes + i + 16)));                    \
        if (_mm_movemask_epi8(_mm_or_si128(a, b)) != 0) {                                        \
            unsigned ma = (unsigned)_mm_movemask_epi8(a);                                        \
            if (ma != 0) return i + (uint64_t)__builtin_ctz(ma);                                 \
            return i + 16 + (uint64_t)__builtin_ctz((unsigned)_mm_movemask_epi8(b));            \
        }                                                                                        \
        i += 32;                                                                                 \
    }                                                                                            \
    if (i + 16 <= end) {                                                                         \
        unsigned m = (unsigned)_mm_movemask_epi8(HITS(_mm_loadu_si128((const __m128i *)(bytes + i)))); \
        if (m != 0) return i + (uint64_t)__builtin_ctz(m);                                       \
        i += 16;                                                                                 \
    }                                                                                            \
    if (i < end && end - start >= 16) {                                                          \
        /* The last 16 bytes again, overlapping what was seen: no byte loop for the tail. */      \
        uint64_t last = end - 16;                                                                \
        unsigned m = (unsigned)_mm_movemask_epi8(HITS(_mm_loadu_si128((const __m128i *)(bytes + last)))); \
        m >>= (unsigned)(i - last);                                                              \
        return m != 0 ? i + (uint64_t)__builtin_ctz(m) : end;                                    \
    }
#endif

uint64_t cemu_json_plain_prefix(const uint8_t *bytes, uint64_t start, uint64_t end, int stop_at_non_ascii) {
    uint64_t i = start;
#if defined(__x86_64__)
    if (stop_at_non_ascii) {
        JSON_SCAN(json_attention_bytes)
    } else {
        JSON_SCAN(json_escape_bytes)
    }
#endif
    while (i < end) {
        uint8_t b = bytes[i];
        if (b == '"' || b == '\\' || b < 0x20 || (stop_at_non_ascii && b >= 0x80)) return i;
        i++;
    }
    return end;
}
