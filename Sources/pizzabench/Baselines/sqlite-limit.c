/*
 * limit.c - physical-limit probe for an SQLite-backed order store (pizzad).
 *
 * Build:  gcc -O2 -Wall -o /tmp/sqlite-limit Sources/pizzabench/Baselines/sqlite-limit.c -lsqlite3
 *
 * Subcommands:
 *   limit insert <db> <mode a|b|c|d> <N> <int|text|text7> [cache_kib]
 *       a = 1 row/txn, synchronous=FULL     b = 1 row/txn, synchronous=NORMAL
 *       c = 100 rows/txn, NORMAL            d = all N rows in one txn, NORMAL
 *       Deletes <db>, <db>-wal, <db>-shm first. journal_mode=WAL.
 *       Schema has PK + index (status, created_at) present during inserts.
 *       Prints rows/s measured from first BEGIN to last COMMIT returning.
 *       int = INTEGER PRIMARY KEY 1..N; text = random UUIDv4 TEXT PRIMARY KEY;
 *       text7 = time-ordered UUIDv7-style TEXT PRIMARY KEY.
 *       cache_kib (optional) sets PRAGMA cache_size=-cache_kib (default 2000).
 *   limit query <db> <lookups> <int|text>
 *       Warm point lookups by PK, cold lookups (after POSIX_FADV_DONTNEED on
 *       the db file), and "WHERE status=? ORDER BY created_at LIMIT 50"
 *       with the (status, created_at) index and with NOT INDEXED.
 *   limit fsync <file> <count>
 *       4 KiB pwrite + fdatasync loop: the raw durable-write floor.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(sqlite3 *db, const char *what) {
    fprintf(stderr, "%s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
    exit(1);
}

static void exec(sqlite3 *db, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "exec '%s': %s\n", sql, err);
        exit(1);
    }
}

/* xorshift64* - deterministic, fast */
static uint64_t rs = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) {
    rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
    return rs * 2685821657736338717ULL;
}

static const char *STATUSES[] = {"pending", "accepted", "baking", "ready",
                                 "out_for_delivery", "delivered", "cancelled"};
/* cumulative weights (per mille): most orders end up delivered */
static const int WEIGHTS[] = {10, 20, 30, 40, 50, 900, 1000};
static const char *pick_status(void) {
    int r = rnd() % 1000;
    for (int i = 0; i < 7; i++) if (r < WEIGHTS[i]) return STATUSES[i];
    return STATUSES[5];
}

static void make_uuid(char out[37]) {
    uint64_t a = rnd(), b = rnd();
    snprintf(out, 37, "%08x-%04x-4%03x-%04x-%012llx",
             (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff,
             (unsigned)a & 0xfff, (unsigned)((b >> 48) & 0x3fff) | 0x8000,
             (unsigned long long)(b & 0xffffffffffffULL));
}

typedef struct {
    char id[37];
    const char *status;
    int64_t created_at;
    char payload[232];
    int plen;
} row_t;

static int keykind = 0;   /* 0 int, 1 uuid4 text, 2 uuid7-style text */
static void make_row(row_t *r, long i) {
    make_uuid(r->id);
    r->status = pick_status();
    r->created_at = 1700000000000LL + i * 50 + (int64_t)(rnd() % 50);
    if (keykind == 2) {   /* 48-bit ms timestamp + sequence prefix, like UUIDv7 */
        char ts[16];
        snprintf(ts, sizeof ts, "%012llx", (unsigned long long)(r->created_at & 0xffffffffffffULL));
        memcpy(r->id, ts, 8); memcpy(r->id + 9, ts + 8, 4);
        char seq[8]; snprintf(seq, sizeof seq, "%03lx", (unsigned long)(i & 0xfff));
        memcpy(r->id + 15, seq, 3);   /* keep order within the same ms */
    }
    static const char *pizzas[] = {"margherita", "marinara", "diavola",
                                   "quattro_formaggi", "capricciosa"};
    r->plen = snprintf(r->payload, sizeof r->payload,
        "{\"customer\":\"c%07llu\",\"items\":[{\"sku\":\"%s\",\"qty\":%d,"
        "\"size\":\"L\"},{\"sku\":\"%s\",\"qty\":%d,\"size\":\"M\"}],"
        "\"total_cents\":%d,\"address\":\"%llu Via Roma, 00100 Roma\","
        "\"note\":\"ring twice, leave at door\",\"channel\":\"web\"}",
        (unsigned long long)(rnd() % 10000000), pizzas[rnd() % 5],
        (int)(1 + rnd() % 3), pizzas[rnd() % 5], (int)(1 + rnd() % 3),
        (int)(800 + rnd() % 5000), (unsigned long long)(1 + rnd() % 999));
}

static void schema(sqlite3 *db, int textkey) {
    exec(db, textkey
        ? "CREATE TABLE IF NOT EXISTS orders(id TEXT PRIMARY KEY, status TEXT NOT NULL,"
          " created_at INTEGER NOT NULL, payload TEXT NOT NULL)"
        : "CREATE TABLE IF NOT EXISTS orders(id INTEGER PRIMARY KEY, status TEXT NOT NULL,"
          " created_at INTEGER NOT NULL, payload TEXT NOT NULL)");
    exec(db, "CREATE INDEX IF NOT EXISTS orders_status_created ON orders(status, created_at)");
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static void stats(const char *label, double *v, int n) {
    qsort(v, n, sizeof *v, cmp_d);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += v[i];
    printf("%-44s n=%-7d median=%8.2f us  p99=%8.2f us  mean=%8.2f us\n", label, n,
           v[n / 2] * 1e6, v[(int)(n * 0.99)] * 1e6, sum / n * 1e6);
}

static void unlink_db(const char *path) {
    char buf[4096];
    unlink(path);
    snprintf(buf, sizeof buf, "%s-wal", path); unlink(buf);
    snprintf(buf, sizeof buf, "%s-shm", path); unlink(buf);
}

static int cmd_insert(const char *path, char mode, long n, int textkey, long cache_kib) {
    long batch = mode == 'c' ? 100 : mode == 'd' ? n : 1;
    const char *sync = mode == 'a' ? "FULL" : "NORMAL";
    row_t *rows = malloc(sizeof(row_t) * n);
    for (long i = 0; i < n; i++) make_row(&rows[i], i);

    unlink_db(path);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) die(db, "open");
    exec(db, "PRAGMA journal_mode=WAL");
    char pr[64];
    snprintf(pr, sizeof pr, "PRAGMA synchronous=%s", sync);
    exec(db, pr);
    schema(db, textkey);
    if (cache_kib > 0) {
        snprintf(pr, sizeof pr, "PRAGMA cache_size=-%ld", cache_kib);
        exec(db, pr);
    }

    sqlite3_stmt *ins, *beg, *com;
    if (sqlite3_prepare_v2(db, "INSERT INTO orders(id,status,created_at,payload) VALUES(?,?,?,?)",
                           -1, &ins, NULL) != SQLITE_OK) die(db, "prepare ins");
    if (sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &beg, NULL) != SQLITE_OK) die(db, "prepare begin");
    if (sqlite3_prepare_v2(db, "COMMIT", -1, &com, NULL) != SQLITE_OK) die(db, "prepare commit");

    double t0 = now();
    for (long i = 0; i < n; i++) {
        if (i % batch == 0) { if (sqlite3_step(beg) != SQLITE_DONE) die(db, "begin"); sqlite3_reset(beg); }
        if (textkey) sqlite3_bind_text(ins, 1, rows[i].id, 36, SQLITE_STATIC);
        else sqlite3_bind_int64(ins, 1, i + 1);
        sqlite3_bind_text(ins, 2, rows[i].status, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 3, rows[i].created_at);
        sqlite3_bind_text(ins, 4, rows[i].payload, rows[i].plen, SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE) die(db, "insert");
        sqlite3_reset(ins);
        if ((i + 1) % batch == 0 || i + 1 == n) {
            if (sqlite3_step(com) != SQLITE_DONE) die(db, "commit");
            sqlite3_reset(com);
        }
    }
    double t1 = now();
    sqlite3_finalize(ins); sqlite3_finalize(beg); sqlite3_finalize(com);
    double c0 = now();
    if (sqlite3_close(db) != SQLITE_OK) die(db, "close");   /* final checkpoint */
    double c1 = now();
    printf("insert mode=%c key=%s cache_kib=%ld sync=%s batch=%ld n=%ld  %.3f s  %.0f rows/s  "
           "(%.1f us/row; close+checkpoint %.3f s)\n",
           mode, keykind == 2 ? "text7" : textkey ? "text" : "int", cache_kib > 0 ? cache_kib : 2000,
           sync, batch, n, t1 - t0, n / (t1 - t0),
           (t1 - t0) / n * 1e6, c1 - c0);
    free(rows);
    return 0;
}

static void drop_cache(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror("open for fadvise"); return; }
    fdatasync(fd);
    if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) perror("fadvise");
    close(fd);
}

static int cmd_query(const char *path, int lookups, int textkey) {
    sqlite3 *db;
    sqlite3_stmt *st;
    /* collect ids */
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) die(db, "open");
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    long n = 0;
    sqlite3_prepare_v2(db, "SELECT count(*) FROM orders", -1, &st, NULL);
    sqlite3_step(st); n = sqlite3_column_int64(st, 0); sqlite3_finalize(st);
    char (*ids)[37] = NULL;
    if (textkey) {
        ids = malloc(37 * (size_t)n);
        sqlite3_prepare_v2(db, "SELECT id FROM orders", -1, &st, NULL);
        long k = 0;
        while (sqlite3_step(st) == SQLITE_ROW && k < n) {
            memcpy(ids[k], sqlite3_column_text(st, 0), 37); k++;
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    printf("rows=%ld\n", n);

    /* cold point lookups: drop the db file from the page cache, open fresh */
    drop_cache(path);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) die(db, "open");
    sqlite3_stmt *pk;
    sqlite3_prepare_v2(db, "SELECT id,status,created_at,payload FROM orders WHERE id=?", -1, &pk, NULL);
    int cold = 1000;
    double *v = malloc(sizeof(double) * (lookups > 2000 ? lookups : 2000));
    for (int i = 0; i < cold; i++) {
        long j = rnd() % n;
        double t0 = now();
        if (textkey) sqlite3_bind_text(pk, 1, ids[j], 36, SQLITE_STATIC);
        else sqlite3_bind_int64(pk, 1, j + 1);
        if (sqlite3_step(pk) != SQLITE_ROW) die(db, "pk miss");
        sqlite3_reset(pk);
        v[i] = now() - t0;
    }
    stats("PK lookup, cold page cache (first 1000)", v, cold);

    /* warm: touch everything once */
    exec(db, "SELECT count(*), sum(length(payload)) FROM orders");
    for (int i = 0; i < lookups; i++) {
        long j = rnd() % n;
        double t0 = now();
        if (textkey) sqlite3_bind_text(pk, 1, ids[j], 36, SQLITE_STATIC);
        else sqlite3_bind_int64(pk, 1, j + 1);
        if (sqlite3_step(pk) != SQLITE_ROW) die(db, "pk miss");
        (void)sqlite3_column_text(pk, 3);
        sqlite3_reset(pk);
        v[i] = now() - t0;
    }
    stats("PK lookup, warm (autocommit read txn each)", v, lookups);

    const char *qsql[2] = {
        "SELECT id,status,created_at,payload FROM orders WHERE status=? ORDER BY created_at LIMIT 50",
        "SELECT id,status,created_at,payload FROM orders NOT INDEXED WHERE status=? ORDER BY created_at LIMIT 50"};
    for (int q = 0; q < 2; q++) {
        char eqp[512];
        snprintf(eqp, sizeof eqp, "EXPLAIN QUERY PLAN %s", qsql[q]);
        sqlite3_prepare_v2(db, eqp, -1, &st, NULL);
        sqlite3_bind_text(st, 1, "pending", -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW) printf("  plan: %s\n", sqlite3_column_text(st, 3));
        sqlite3_finalize(st);
        sqlite3_prepare_v2(db, qsql[q], -1, &st, NULL);
        const char *which[2] = {"pending", "delivered"};
        for (int w = 0; w < 2; w++) {
            int reps = q == 0 ? 2000 : 10;
            for (int i = 0; i < reps; i++) {
                double t0 = now();
                sqlite3_bind_text(st, 1, which[w], -1, SQLITE_STATIC);
                int got = 0;
                while (sqlite3_step(st) == SQLITE_ROW) { (void)sqlite3_column_text(st, 3); got++; }
                sqlite3_reset(st);
                v[i] = now() - t0;
                if (got != 50) { fprintf(stderr, "got %d rows\n", got); exit(1); }
            }
            char label[96];
            snprintf(label, sizeof label, "status=%s LIMIT 50 %s", which[w],
                     q == 0 ? "(index)" : "(NOT INDEXED)");
            stats(label, v, reps);
        }
        sqlite3_finalize(st);
    }
    sqlite3_finalize(pk);
    sqlite3_close(db);
    free(v); free(ids);
    return 0;
}

static int cmd_fsync(const char *path, int count) {
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) { perror("open"); return 1; }
    char buf[4096];
    memset(buf, 'x', sizeof buf);
    double *v = malloc(sizeof(double) * count);
    for (int i = 0; i < count; i++) {
        double t0 = now();
        if (pwrite(fd, buf, sizeof buf, (off_t)(i % 256) * 4096) != sizeof buf) { perror("pwrite"); return 1; }
        if (fdatasync(fd) != 0) { perror("fdatasync"); return 1; }
        v[i] = now() - t0;
    }
    stats("4 KiB pwrite+fdatasync", v, count);
    close(fd); unlink(path);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 6 && !strcmp(argv[1], "insert")) {
        keykind = !strcmp(argv[5], "text7") ? 2 : !strcmp(argv[5], "text") ? 1 : 0;
        return cmd_insert(argv[2], argv[3][0], atol(argv[4]), keykind != 0,
                          argc >= 7 ? atol(argv[6]) : 0);
    }
    if (argc >= 5 && !strcmp(argv[1], "query"))
        return cmd_query(argv[2], atoi(argv[3]), strncmp(argv[4], "text", 4) == 0);
    if (argc >= 4 && !strcmp(argv[1], "fsync"))
        return cmd_fsync(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: limit insert <db> <a|b|c|d> <N> <int|text|text7> [cache_kib]\n"
                    "       limit query <db> <lookups> <int|text|text7>\n"
                    "       limit fsync <file> <count>\n");
    return 2;
}
