/* socketwork: samework.c's rows behind pizzad's architecture, in plain C, as a bound for what a daemon of this
 * shape can do on this machine. Clients on Unix stream sockets send order.create request lines; two event-loop
 * threads (epoll) read them and queue them for one writer thread; the writer takes everything queued into one
 * BEGIN IMMEDIATE..COMMIT (synchronous=FULL, WAL) with samework.c's rows for each order (1 cart, 2 pizzas,
 * 2 status_history, 1 audit_log row hashed with SHA-256), and after the COMMIT hands each loop its answers
 * with one eventfd write; the loops write each client its answer line. No JSON is parsed beyond the request id and
 * nothing is validated: what is left is the rows, the group commit and the socket round trips.
 * Unlike samework.c, no savepoint per order: pizzad runs a change in the group commit's transaction as it is and
 * only takes a savepoint per change when one must be undone, so the bound does not do work pizzad skips.
 * The clients are threads of a forked child, each on a blocking socket sending a prepared line, like pizzabench's.
 * Build: gcc -O2 -pthread -Wno-deprecated-declarations -o socketwork socketwork.c -lsqlite3 -lcrypto
 * Usage: socketwork DB MIGRATIONS_DIR CLIENTS SECONDS   (DB is deleted first).
 * Prints "orders/s server_cpu_us_per_order p99_us changes_per_commit". */
#define _GNU_SOURCE
#include <dirent.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXC 256
#define LOOPS 2

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void die(sqlite3 *db, const char *w) { fprintf(stderr, "%s: %s\n", w, sqlite3_errmsg(db)); exit(1); }
static void ex(sqlite3 *db, const char *sql) { char *e = 0; if (sqlite3_exec(db, sql, 0, 0, &e)) { fprintf(stderr, "%s: %s\n", sql, e); exit(1); } }
static int cmpstr(const void *a, const void *b) { return strcmp(*(char **)a, *(char **)b); }
static sqlite3_stmt *prep(sqlite3 *db, const char *sql) { sqlite3_stmt *s; if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, 0)) die(db, sql); return s; }

/* A request waiting for the writer, then its answer waiting for its loop. */
struct job { int conn; long id; struct job *next; int len; char answer[1200]; };

static int fds[MAXC];                      /* server side of each client's socket */
static char buf[MAXC][4096];               /* what each connection sent that is not a whole line yet */
static int have[MAXC];
static struct { pthread_mutex_t m; struct job *head, *tail; int efd; int epfd; } loops[LOOPS];
static pthread_mutex_t qm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qc = PTHREAD_COND_INITIALIZER;
static struct job *qhead, *qtail;
static sqlite3 *db;
static long commits, committed;
static long tickets[MAXC];                 /* each client's last ref number (the writer's alone) */

static void *writer(void *unused) {
    (void)unused;
    sqlite3_stmt *cart = prep(db, "INSERT INTO carts (ref, customer, note, status, currency, total, created_at, updated_at) VALUES (?1, NULL, NULL, 'placed', 'EUR', 2150, ?2, ?2)");
    sqlite3_stmt *pz = prep(db, "INSERT INTO pizzas (cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price) VALUES (?1, ?2, ?3, 'classic', 0, 0, '', 1, ?4)");
    sqlite3_stmt *hist = prep(db, "INSERT INTO status_history (cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid) VALUES (?1, ?2, ?3, ?4, 0, 'root', 4242)");
    sqlite3_stmt *aud = prep(db, "INSERT INTO audit_log (at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before, after, prev_hash, hash) VALUES (?1, 0, 'root', 4242, 'created', ?2, 'placed', NULL, NULL, ?3, ?4, ?5)");
    sqlite3_stmt *beg = prep(db, "BEGIN IMMEDIATE"), *com = prep(db, "COMMIT");
    char prev[65]; memset(prev, '0', 64); prev[64] = 0;
    long orders = 0;
    for (;;) {
        pthread_mutex_lock(&qm);
        while (!qhead) pthread_cond_wait(&qc, &qm);
        struct job *batch = qhead; qhead = qtail = 0;
        pthread_mutex_unlock(&qm);
        sqlite3_step(beg); sqlite3_reset(beg);
        int n = 0;
        for (struct job *j = batch; j; j = j->next, orders++, n++) {
            char ref[64], at[32]; time_t tt = time(0); struct tm tm; gmtime_r(&tt, &tm);
            strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
            /* The ref a till sends: its own sequence per client connection, as pizzabench's clients number them. */
            snprintf(ref, sizeof ref, "c%d-%ld", j->conn, ++tickets[j->conn]);
            sqlite3_bind_text(cart, 1, ref, -1, SQLITE_TRANSIENT); sqlite3_bind_text(cart, 2, at, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(cart) != SQLITE_DONE) { die(db, "cart"); }
            sqlite3_reset(cart);
            sqlite3_int64 id = sqlite3_last_insert_rowid(db);
            const char *kinds[2] = {"chicken", "cheese"}, *sizes[2] = {"L", "M"}; int prices[2] = {1250, 900};
            for (int k = 0; k < 2; k++) {
                sqlite3_bind_int64(pz, 1, id); sqlite3_bind_text(pz, 2, kinds[k], -1, SQLITE_STATIC);
                sqlite3_bind_text(pz, 3, sizes[k], -1, SQLITE_STATIC); sqlite3_bind_int(pz, 4, prices[k]);
                if (sqlite3_step(pz) != SQLITE_DONE) { die(db, "pizza"); }
                sqlite3_reset(pz);
            }
            const char *from[2] = {NULL, "open"}, *to[2] = {"open", "placed"};
            for (int k = 0; k < 2; k++) {
                sqlite3_bind_int64(hist, 1, id);
                if (from[k]) sqlite3_bind_text(hist, 2, from[k], -1, SQLITE_STATIC); else sqlite3_bind_null(hist, 2);
                sqlite3_bind_text(hist, 3, to[k], -1, SQLITE_STATIC); sqlite3_bind_text(hist, 4, at, -1, SQLITE_TRANSIENT);
                if (sqlite3_step(hist) != SQLITE_DONE) { die(db, "history"); }
                sqlite3_reset(hist);
            }
            char json[1024];
            int jl = snprintf(json, sizeof json,
                "{\"id\":%lld,\"ref\":\"%s\",\"customer\":null,\"note\":null,\"status\":\"placed\",\"currency\":\"EUR\","
                "\"total\":2150,\"createdAt\":\"%s\",\"updatedAt\":\"%s\",\"items\":[{\"id\":%lld,\"kind\":\"chicken\","
                "\"size\":\"L\",\"crust\":\"classic\",\"chiliSauce\":false,\"ketchup\":false,\"extras\":[],\"quantity\":1,"
                "\"unitPrice\":1250},{\"id\":%lld,\"kind\":\"cheese\",\"size\":\"M\",\"crust\":\"classic\",\"chiliSauce\":false,"
                "\"ketchup\":false,\"extras\":[],\"quantity\":1,\"unitPrice\":900}]}",
                (long long)id, ref, at, at, (long long)id * 2, (long long)id * 2 + 1);
            unsigned char md[32]; SHA256_CTX c; SHA256_Init(&c); SHA256_Update(&c, json, jl); SHA256_Update(&c, prev, 64); SHA256_Final(md, &c);
            char hex[65]; for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]);
            sqlite3_bind_text(aud, 1, at, -1, SQLITE_TRANSIENT); sqlite3_bind_int64(aud, 2, id);
            sqlite3_bind_text(aud, 3, json, jl, SQLITE_TRANSIENT); sqlite3_bind_text(aud, 4, prev, 64, SQLITE_TRANSIENT);
            sqlite3_bind_text(aud, 5, hex, 64, SQLITE_TRANSIENT);
            if (sqlite3_step(aud) != SQLITE_DONE) { die(db, "audit"); }
            sqlite3_reset(aud);
            memcpy(prev, hex, 65);
            j->len = snprintf(j->answer, sizeof j->answer, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":%.*s}\n", j->id, jl, json);
        }
        if (sqlite3_step(com) != SQLITE_DONE) { die(db, "commit"); }
        sqlite3_reset(com);
        __atomic_add_fetch(&commits, 1, __ATOMIC_RELAXED); __atomic_add_fetch(&committed, n, __ATOMIC_RELAXED);
        /* Durable: each loop gets its answers, and one wake-up. */
        int woken[LOOPS] = {0};
        for (struct job *j = batch, *next; j; j = next) {
            next = j->next; j->next = 0;
            int l = j->conn % LOOPS;
            pthread_mutex_lock(&loops[l].m);
            if (loops[l].tail) loops[l].tail->next = j; else loops[l].head = j;
            loops[l].tail = j;
            pthread_mutex_unlock(&loops[l].m);
            woken[l] = 1;
        }
        for (int l = 0; l < LOOPS; l++) if (woken[l]) { uint64_t one = 1; if (write(loops[l].efd, &one, 8) != 8) abort(); }
    }
    return 0;
}

static void *loop(void *arg) {
    int l = (int)(intptr_t)arg;
    struct epoll_event events[64];
    for (;;) {
        int n = epoll_wait(loops[l].epfd, events, 64, -1);
        for (int e = 0; e < n; e++) {
            int conn = (int)events[e].data.u32;
            if (conn == MAXC) { /* the eventfd: answers to write */
                uint64_t count; if (read(loops[l].efd, &count, 8) != 8) abort();
                pthread_mutex_lock(&loops[l].m);
                struct job *done = loops[l].head; loops[l].head = loops[l].tail = 0;
                pthread_mutex_unlock(&loops[l].m);
                for (struct job *j = done, *next; j; j = next) {
                    next = j->next;
                    if (write(fds[j->conn], j->answer, j->len) != j->len) { /* client gone */ }
                    free(j);
                }
                continue;
            }
            ssize_t got = read(fds[conn], buf[conn] + have[conn], sizeof buf[conn] - have[conn]);
            if (got <= 0) { epoll_ctl(loops[l].epfd, EPOLL_CTL_DEL, fds[conn], 0); continue; }
            have[conn] += (int)got;
            char *start = buf[conn], *end;
            while ((end = memchr(start, '\n', buf[conn] + have[conn] - start))) {
                char *idp = memmem(start, end - start, "\"id\":", 5);
                struct job *j = malloc(sizeof *j);
                j->conn = conn; j->id = idp ? atol(idp + 5) : 0; j->next = 0;
                pthread_mutex_lock(&qm);
                if (qtail) qtail->next = j; else { qhead = j; pthread_cond_signal(&qc); }
                qtail = j;
                pthread_mutex_unlock(&qm);
                start = end + 1;
            }
            have[conn] -= (int)(start - buf[conn]);
            memmove(buf[conn], start, have[conn]);
        }
    }
    return 0;
}

/* Shared with the clients' process. */
static struct shared { long count[MAXC]; uint32_t hist[4096]; } *shared;
static int cfds[MAXC];
static double deadline;

static void *client(void *arg) {
    int c = (int)(intptr_t)arg;
    const char *prefix = "{\"jsonrpc\":\"2.0\",\"method\":\"order.create\",\"params\":{\"customer\":\"bench\",\"items\":"
        "[{\"kind\":\"chicken\",\"size\":\"L\",\"extras\":[\"olives\"]},{\"kind\":\"cheese\"}],\"place\":true},\"id\":";
    char line[512], in[4096]; long count = 0; int have = 0;
    static pthread_mutex_t hm = PTHREAD_MUTEX_INITIALIZER;
    uint32_t hist[4096] = {0};
    while (now() < deadline) {
        int len = snprintf(line, sizeof line, "%s%ld}\n", prefix, count + 1);
        double begin = now();
        if (write(cfds[c], line, len) != len) abort();
        for (;;) {
            char *nl = have ? memchr(in, '\n', have) : 0;
            if (nl) { int used = (int)(nl - in) + 1; have -= used; memmove(in, nl + 1, have); break; }
            ssize_t got = read(cfds[c], in + have, sizeof in - have);
            if (got <= 0) abort();
            have += (int)got;
        }
        double us = (now() - begin) * 1e6;
        int bucket = us < 4095 ? (int)us : 4095; /* 1 µs buckets up to 4 ms */
        hist[bucket]++;
        count++;
    }
    pthread_mutex_lock(&hm);
    shared->count[c] = count;
    for (int i = 0; i < 4096; i++) shared->hist[i] += hist[i];
    pthread_mutex_unlock(&hm);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: socketwork DB MIGRATIONS CLIENTS SECONDS\n"); return 2; }
    const char *path = argv[1]; int clients = atoi(argv[3]); double secs = atof(argv[4]);
    if (clients < 1 || clients > MAXC - 1) { fprintf(stderr, "clients: 1 to %d\n", MAXC - 1); return 2; }
    char buf[4096]; unlink(path); snprintf(buf, sizeof buf, "%s-wal", path); unlink(buf); snprintf(buf, sizeof buf, "%s-shm", path); unlink(buf);
    if (sqlite3_open(path, &db)) die(db, "open");
    ex(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;");
    DIR *d = opendir(argv[2]); if (!d) { perror(argv[2]); return 1; }
    char *names[64]; int n = 0; struct dirent *e;
    while ((e = readdir(d)) && n < 64) if (strstr(e->d_name, ".sql")) names[n++] = strdup(e->d_name);
    closedir(d); qsort(names, n, sizeof *names, cmpstr);
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "%s/%s", argv[2], names[i]); FILE *f = fopen(buf, "r"); if (!f) return 1;
        static char sql[1 << 20]; size_t len = fread(sql, 1, sizeof sql - 1, f); sql[len] = 0; fclose(f);
        ex(db, "BEGIN"); ex(db, sql); ex(db, "COMMIT");
    }
    shared = mmap(0, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) { perror("mmap"); return 1; }
    memset(shared, 0, sizeof *shared);
    for (int c = 0; c < clients; c++) {
        int pair[2]; if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair)) { perror("socketpair"); return 1; }
        fds[c] = pair[0]; cfds[c] = pair[1];
    }
    deadline = now() + secs + 0.3;
    pid_t child = fork();
    if (child == 0) { /* the clients */
        for (int c = 0; c < clients; c++) close(fds[c]);
        usleep(300000);
        pthread_t t[MAXC];
        for (int c = 0; c < clients; c++) pthread_create(&t[c], 0, client, (void *)(intptr_t)c);
        for (int c = 0; c < clients; c++) pthread_join(t[c], 0);
        _exit(0);
    }
    for (int c = 0; c < clients; c++) close(cfds[c]);
    for (int l = 0; l < LOOPS; l++) {
        pthread_mutex_init(&loops[l].m, 0);
        loops[l].efd = eventfd(0, 0); loops[l].epfd = epoll_create1(0);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = MAXC};
        epoll_ctl(loops[l].epfd, EPOLL_CTL_ADD, loops[l].efd, &ev);
    }
    for (int c = 0; c < clients; c++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)c};
        epoll_ctl(loops[c % LOOPS].epfd, EPOLL_CTL_ADD, fds[c], &ev);
    }
    pthread_t w, lt[LOOPS];
    pthread_create(&w, 0, writer, 0);
    pthread_setname_np(w, "writer");
    for (int l = 0; l < LOOPS; l++) {
        pthread_create(&lt[l], 0, loop, (void *)(intptr_t)l);
        char name[16]; snprintf(name, sizeof name, "loop-%d", l); /* pizzabench counts splits its CPU by these */
        pthread_setname_np(lt[l], name);
    }
    struct rusage r0, r1;
    usleep(300000); /* the clients start after 0.3 s */
    double t0 = now(); getrusage(RUSAGE_SELF, &r0); long commits0 = __atomic_load_n(&commits, __ATOMIC_RELAXED), committed0 = __atomic_load_n(&committed, __ATOMIC_RELAXED);
    int status; waitpid(child, &status, 0);
    double el = now() - t0; getrusage(RUSAGE_SELF, &r1);
    long changes = __atomic_load_n(&committed, __ATOMIC_RELAXED) - committed0, batches = __atomic_load_n(&commits, __ATOMIC_RELAXED) - commits0;
    long total = 0; for (int c = 0; c < clients; c++) total += shared->count[c];
    double cpu = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
                 (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
    long seen = 0, p99 = 4095;
    for (int i = 0; i < 4096; i++) { seen += shared->hist[i]; if (seen >= total * 0.99) { p99 = i; break; } }
    printf("%.0f %.1f %ld %.1f\n", total / el, cpu / (total ? total : 1) * 1e6, p99, batches ? (double)changes / batches : 0.0);
    return 0;
}
