// What one durable journal append costs on this disk: wall time, system and user CPU per
// operation, for the ways the live data directory could make a small append durable.
//
//   cc -O2 -o /tmp/sync_cost Benchmarks/sync_cost.c
//   /tmp/sync_cost fdatasync 2000 700   # pwrite + fdatasync (buffered; the fallback)
//   /tmp/sync_cost odirect 2000 700     # O_DIRECT|O_DSYNC, rewrite from the last 4 KiB block (the journal)
//   /tmp/sync_cost rwf 2000 700         # pwritev2(..., RWF_DSYNC) on a buffered descriptor
//   /tmp/sync_cost odsync 2000 700      # O_DSYNC buffered pwrite
//
// Each run appends <count> records of <size> bytes to /tmp/sync_cost.file, preallocated (64 MiB
// of synced zeros) first like the journal. Alternate the modes in one shell loop to pair them.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#ifndef RWF_DSYNC
#define RWF_DSYNC 0x2
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu(int system) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    struct timeval v = system ? u.ru_stime : u.ru_utime;
    return v.tv_sec + v.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s fdatasync|odirect|rwf|odsync count [size]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    int count = atoi(argv[2]);
    int size = argc > 3 ? atoi(argv[3]) : 256;
    if (size < 1 || size > 65536 - 4096) size = 256;
    const char *path = "/tmp/sync_cost.file";
    unlink(path);
    int flags = O_RDWR | O_CREAT;
    if (!strcmp(mode, "odsync")) flags |= O_DSYNC;
    if (!strcmp(mode, "odirect")) flags |= O_DSYNC | O_DIRECT;
    int fd = open(path, flags, 0644);
    if (fd < 0) { perror("open"); return 1; }
    size_t preallocation = 64 << 20;
    char *zeros, *buffer;
    if (posix_memalign((void **)&zeros, 4096, 1 << 20) || posix_memalign((void **)&buffer, 4096, 65536)) return 1;
    memset(zeros, 0, 1 << 20);
    memset(buffer, 'x', 65536);
    int plain = open(path, O_RDWR);
    for (size_t offset = 0; offset < preallocation; offset += 1 << 20) pwrite(plain, zeros, 1 << 20, offset);
    fdatasync(plain);
    close(plain);
    off_t offset = 0;
    double t0 = now(), u0 = cpu(0), s0 = cpu(1);
    for (int i = 0; i < count; i++) {
        if (!strcmp(mode, "fdatasync")) {
            pwrite(fd, buffer, size, offset);
            fdatasync(fd);
        } else if (!strcmp(mode, "rwf")) {
            struct iovec v = {buffer, (size_t)size};
            pwritev2(fd, &v, 1, offset, RWF_DSYNC);
        } else if (!strcmp(mode, "odsync")) {
            pwrite(fd, buffer, size, offset);
        } else if (!strcmp(mode, "odirect")) {
            off_t block = offset & ~4095;
            size_t length = ((offset + size + 4095) & ~4095) - block;
            if (pwrite(fd, buffer, length, block) < 0) { perror("pwrite"); return 1; }
        } else {
            fprintf(stderr, "unknown mode %s\n", mode);
            return 2;
        }
        offset += size;
    }
    double wall = now() - t0, user = cpu(0) - u0, system = cpu(1) - s0;
    printf("%-10s size %5d: %6.1f us wall, %5.1f us sys, %4.1f us user per op (%d ops)\n", mode, size,
           wall / count * 1e6, system / count * 1e6, user / count * 1e6, count);
    close(fd);
    unlink(path);
    return 0;
}
