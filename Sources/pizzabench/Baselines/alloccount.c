// An LD_PRELOAD counter of heap allocations, for pizzabench's counts: malloc, calloc, realloc and the
// aligned allocations (memalign, posix_memalign, aligned_alloc, valloc, pvalloc), and free, each an atomic count in a
// shared file ($ALLOC_COUNT_FILE: five little-endian 64-bit counters) that pizzabench reads before and after a window
// of load. Only the process it was loaded into counts: a forked child (socketwork.c's clients) stops counting.
// glibc's own entry points (__libc_malloc and its kin) do the work, so no dlsym (which allocates) is needed.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

enum { MALLOC, CALLOC, REALLOC, ALIGNED, FREE, COUNTERS };
static _Atomic(unsigned long long) *counts;

static inline void count(int which) {
    _Atomic(unsigned long long) *c = counts;
    if (c) atomic_fetch_add_explicit(&c[which], 1, memory_order_relaxed);
}

static void forked(void) { counts = 0; }

__attribute__((constructor)) static void start(void) {
    const char *path = getenv("ALLOC_COUNT_FILE");
    if (!path) return;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    if (ftruncate(fd, 4096) == 0) {
        void *page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (page != MAP_FAILED) counts = page;
    }
    close(fd);
    pthread_atfork(0, 0, forked);
}

void *malloc(size_t size) { count(MALLOC); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(CALLOC); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(REALLOC); return __libc_realloc(p, size); }
void free(void *p) { if (p) count(FREE); __libc_free(p); }
void *memalign(size_t alignment, size_t size) { count(ALIGNED); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(ALIGNED); return __libc_memalign(alignment, size); }
void *valloc(size_t size) { count(ALIGNED); return __libc_memalign(sysconf(_SC_PAGESIZE), size); }
void *pvalloc(size_t size) {
    size_t page = sysconf(_SC_PAGESIZE);
    count(ALIGNED);
    return __libc_memalign(page, (size + page - 1) / page * page);
}
int posix_memalign(void **out, size_t alignment, size_t size) {
    count(ALIGNED);
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
