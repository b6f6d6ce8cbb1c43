// SQLite's small allocations from per-thread free lists (see include/sqlite_memory.h).
#include "sqlite_memory.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { CLASSES = 7, HEADER = 16, BIG = 255, CLASS_BYTES_CAP = 256 * 1024 };
static const int class_size[CLASSES] = {32, 64, 128, 256, 512, 1024, 2048};

typedef struct block {
    struct block *next;
} block;

// A thread's lists; the key's destructor gives them back to free when the thread ends.
typedef struct {
    block *head[CLASSES];
    int count[CLASSES];
} lists;

static __thread lists local;
static __thread int registered;
static pthread_key_t key;

static void release(void *unused) {
    (void)unused;
    for (int c = 0; c < CLASSES; c++) {
        block *b = local.head[c];
        while (b) {
            block *next = b->next;
            free((unsigned char *)b - HEADER);
            b = next;
        }
        local.head[c] = 0;
        local.count[c] = 0;
    }
}

static inline int class_of(int n) {
    for (int c = 0; c < CLASSES; c++)
        if (n <= class_size[c]) return c;
    return BIG;
}

// The header: the class in its first word, the size of a large block in its second.
static inline uint64_t *header(void *p) { return (uint64_t *)((unsigned char *)p - HEADER); }

static void *x_malloc(int n) {
    int c = class_of(n);
    if (c != BIG) {
        block *b = local.head[c];
        if (b) {
            local.head[c] = b->next;
            local.count[c]--;
            return b;
        }
        if (!registered) {
            registered = 1;
            pthread_setspecific(key, &local);
        }
        uint64_t *raw = malloc(HEADER + class_size[c]);
        if (!raw) return 0;
        raw[0] = (uint64_t)c;
        return (unsigned char *)raw + HEADER;
    }
    uint64_t *raw = malloc(HEADER + (size_t)n);
    if (!raw) return 0;
    raw[0] = BIG;
    raw[1] = (uint64_t)n;
    return (unsigned char *)raw + HEADER;
}

static void x_free(void *p) {
    if (!p) return;
    uint64_t c = header(p)[0];
    if (c != BIG && local.count[c] < CLASS_BYTES_CAP / class_size[c]) {
        if (!registered) {
            registered = 1;
            pthread_setspecific(key, &local);
        }
        block *b = p;
        b->next = local.head[c];
        local.head[c] = b;
        local.count[c]++;
        return;
    }
    free(header(p));
}

static int x_size(void *p) {
    if (!p) return 0;
    uint64_t c = header(p)[0];
    return c == BIG ? (int)header(p)[1] : class_size[c];
}

static void *x_realloc(void *p, int n) {
    if (!p) return x_malloc(n);
    int had = x_size(p);
    if (n <= had) return p;
    void *q = x_malloc(n);
    if (!q) return 0;
    memcpy(q, p, (size_t)(had < n ? had : n));
    x_free(p);
    return q;
}

static int x_roundup(int n) {
    int c = class_of(n);
    return c == BIG ? (n + 7) & ~7 : class_size[c];
}

static int x_init(void *unused) {
    (void)unused;
    return 0;
}

static void x_shutdown(void *unused) { (void)unused; }

int pizzad_sqlite_memory_install(void) {
    static const sqlite3_mem_methods methods = {
        x_malloc, x_free, x_realloc, x_size, x_roundup, x_init, x_shutdown, 0,
    };
    if (pthread_key_create(&key, release) != 0) return SQLITE_ERROR;
    return sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
}

int pizzad_sqlite_memory_cached_blocks(void) {
    int total = 0;
    for (int c = 0; c < CLASSES; c++) total += local.count[c];
    return total;
}
