/* samework: the same durable work as pizzad's order.create (two pizzas, placed) done by plain C on the
 * project's own schema, with group commit: B orders per BEGIN IMMEDIATE..COMMIT, each in a savepoint,
 * synchronous=FULL, WAL. Per order: 1 cart row, 2 pizza rows, 2 status_history rows, 1 audit_log row whose
 * hash is SHA-256 over a JSON text and the previous hash. No socket, no parsing: the ceiling for this work.
 * Each order carries a ref as pizzabench's clients send them: "c<client>-<ticket>", one sequence per client, so the
 * unique index on ref takes the same inserts (in as many places as there are clients) as pizzad's.
 * Build: gcc -O2 -Wno-deprecated-declarations -o samework Sources/pizzabench/Baselines/samework.c -lsqlite3 -lcrypto (libssl-dev)
 * Usage: samework DB MIGRATIONS_DIR BATCH SECONDS [noref]   (DB is deleted first; noref: orders without a ref, to
 * show what the ref's index costs). Prints "orders/s us_cpu_per_order". */
#define _GNU_SOURCE
#include <dirent.h>
#include <openssl/sha.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void die(sqlite3 *db, const char *w) { fprintf(stderr, "%s: %s\n", w, sqlite3_errmsg(db)); exit(1); }
static void ex(sqlite3 *db, const char *sql) { char *e = 0; if (sqlite3_exec(db, sql, 0, 0, &e)) { fprintf(stderr, "%s: %s\n", sql, e); exit(1); } }
static int cmpstr(const void *a, const void *b) { return strcmp(*(char **)a, *(char **)b); }
static sqlite3_stmt *prep(sqlite3 *db, const char *sql) { sqlite3_stmt *s; if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, 0)) die(db, sql); return s; }

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: samework DB MIGRATIONS BATCH SECONDS\n"); return 2; }
    const char *path = argv[1]; int batch = atoi(argv[3]); double secs = atof(argv[4]);
    int noref = argc > 5 && strcmp(argv[5], "noref") == 0;
    char buf[4096]; unlink(path); snprintf(buf, sizeof buf, "%s-wal", path); unlink(buf); snprintf(buf, sizeof buf, "%s-shm", path); unlink(buf);
    sqlite3 *db; if (sqlite3_open(path, &db)) die(db, "open");
    ex(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;");
    /* the project's migrations, in order */
    DIR *d = opendir(argv[2]); if (!d) { perror(argv[2]); return 1; }
    char *names[64]; int n = 0; struct dirent *e;
    while ((e = readdir(d)) && n < 64) if (strstr(e->d_name, ".sql")) names[n++] = strdup(e->d_name);
    closedir(d); qsort(names, n, sizeof *names, cmpstr);
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "%s/%s", argv[2], names[i]); FILE *f = fopen(buf, "r"); if (!f) return 1;
        static char sql[1 << 20]; size_t len = fread(sql, 1, sizeof sql - 1, f); sql[len] = 0; fclose(f);
        ex(db, "BEGIN"); ex(db, sql); ex(db, "COMMIT");
    }
    sqlite3_stmt *cart = prep(db, "INSERT INTO carts (ref, customer, note, status, currency, total, created_at, updated_at, subtotal) VALUES (?1, 'bench', NULL, 'placed', 'EUR', 2230, ?2, ?2, 2230)");
    sqlite3_stmt *pz = prep(db, "INSERT INTO pizzas (cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price, tax, tax_bp) VALUES (?1, ?2, ?3, 'classic', 0, 0, ?5, 1, ?4, 'none', 0)");
    sqlite3_stmt *hist = prep(db, "INSERT INTO status_history (cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid) VALUES (?1, ?2, ?3, ?4, 0, 'root', 4242)");
    sqlite3_stmt *aud = prep(db, "INSERT INTO audit_log (at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before, after, prev_hash, hash) VALUES (?1, 0, 'root', 4242, 'created', ?2, 'placed', NULL, NULL, ?3, ?4, ?5)");
    sqlite3_stmt *sp = prep(db, "SAVEPOINT o"), *rel = prep(db, "RELEASE o"), *beg = prep(db, "BEGIN IMMEDIATE"), *com = prep(db, "COMMIT");
    char prev[65]; memset(prev, '0', 64); prev[64] = 0;
    long orders = 0; double t0 = now(), end = t0 + secs;
    struct rusage r0, r1; getrusage(RUSAGE_SELF, &r0);
    while (now() < end) {
        sqlite3_step(beg); sqlite3_reset(beg);
        for (int b = 0; b < batch; b++, orders++) {
            sqlite3_step(sp); sqlite3_reset(sp);
            char ref[64], at[32]; time_t tt = time(0); struct tm tm; gmtime_r(&tt, &tm);
            strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
            /* As pizzabench's tills number their tickets: one sequence per client, the batch's orders from different ones. */
            snprintf(ref, sizeof ref, "c%d-%ld", b, orders / batch);
            if (noref) sqlite3_bind_null(cart, 1); else sqlite3_bind_text(cart, 1, ref, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(cart, 2, at, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(cart) != SQLITE_DONE) die(db, "cart"); sqlite3_reset(cart);
            sqlite3_int64 id = sqlite3_last_insert_rowid(db);
            const char *kinds[2] = {"chicken", "cheese"}, *sizes[2] = {"L", "M"}, *extras[2] = {"olives", ""};
            int prices[2] = {1330, 900};
            for (int k = 0; k < 2; k++) {
                sqlite3_bind_int64(pz, 1, id); sqlite3_bind_text(pz, 2, kinds[k], -1, SQLITE_STATIC);
                sqlite3_bind_text(pz, 3, sizes[k], -1, SQLITE_STATIC); sqlite3_bind_int(pz, 4, prices[k]);
                sqlite3_bind_text(pz, 5, extras[k], -1, SQLITE_STATIC);
                if (sqlite3_step(pz) != SQLITE_DONE) die(db, "pizza"); sqlite3_reset(pz);
            }
            const char *from[2] = {NULL, "open"}, *to[2] = {"open", "placed"};
            for (int k = 0; k < 2; k++) {
                sqlite3_bind_int64(hist, 1, id);
                if (from[k]) sqlite3_bind_text(hist, 2, from[k], -1, SQLITE_STATIC); else sqlite3_bind_null(hist, 2);
                sqlite3_bind_text(hist, 3, to[k], -1, SQLITE_STATIC); sqlite3_bind_text(hist, 4, at, -1, SQLITE_TRANSIENT);
                if (sqlite3_step(hist) != SQLITE_DONE) die(db, "history"); sqlite3_reset(hist);
            }
            /* The order's text as pizzad writes it since CONTRACT 17 (pickup, each item's rate, the figures, the history). */
            char json[1400];
            int jl = snprintf(json, sizeof json,
                "{\"id\":%lld,\"ref\":%s%s%s,\"customer\":\"bench\",\"note\":null,\"status\":\"placed\",\"fulfilment\":"
                "{\"type\":\"pickup\"},\"items\":[{\"id\":%lld,\"kind\":\"chicken\",\"size\":\"L\",\"crust\":\"classic\","
                "\"chiliSauce\":false,\"ketchup\":false,\"extras\":[\"olives\"],\"quantity\":1,\"unitPrice\":1330,\"price\":1330,"
                "\"tax\":\"none\",\"basisPoints\":0},{\"id\":%lld,\"kind\":\"cheese\",\"size\":\"M\",\"crust\":\"classic\","
                "\"chiliSauce\":false,\"ketchup\":false,\"extras\":[],\"quantity\":1,\"unitPrice\":900,\"price\":900,\"tax\":"
                "\"none\",\"basisPoints\":0}],\"subtotal\":2230,\"discounts\":[],\"fees\":[],\"total\":2230,\"taxes\":[{\"rate\":"
                "\"none\",\"basisPoints\":0,\"gross\":2230,\"net\":2230,\"tax\":0}],\"payments\":[],\"paid\":0,\"balance\":2230,"
                "\"currency\":\"EUR\",\"createdAt\":\"%s\",\"updatedAt\":\"%s\",\"history\":[{\"from\":null,\"to\":\"open\","
                "\"at\":\"%s\",\"actor\":{\"uid\":0,\"name\":\"root\",\"pid\":4242},\"reason\":null},{\"from\":\"open\",\"to\":"
                "\"placed\",\"at\":\"%s\",\"actor\":{\"uid\":0,\"name\":\"root\",\"pid\":4242},\"reason\":null}]}",
                (long long)id, noref ? "" : "\"", noref ? "null" : ref, noref ? "" : "\"", (long long)id * 2,
                (long long)id * 2 + 1, at, at, at, at);
            unsigned char md[32]; SHA256_CTX c; SHA256_Init(&c); SHA256_Update(&c, json, jl); SHA256_Update(&c, prev, 64); SHA256_Final(md, &c);
            char hex[65]; for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]);
            sqlite3_bind_text(aud, 1, at, -1, SQLITE_TRANSIENT); sqlite3_bind_int64(aud, 2, id);
            sqlite3_bind_text(aud, 3, json, jl, SQLITE_TRANSIENT); sqlite3_bind_text(aud, 4, prev, 64, SQLITE_TRANSIENT);
            sqlite3_bind_text(aud, 5, hex, 64, SQLITE_TRANSIENT);
            if (sqlite3_step(aud) != SQLITE_DONE) die(db, "audit"); sqlite3_reset(aud);
            memcpy(prev, hex, 65);
            sqlite3_step(rel); sqlite3_reset(rel);
        }
        if (sqlite3_step(com) != SQLITE_DONE) die(db, "commit"); sqlite3_reset(com);
    }
    double el = now() - t0; getrusage(RUSAGE_SELF, &r1);
    double cpu = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
                 (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
    printf("%.0f %.1f\n", orders / el, cpu / orders * 1e6);
    return 0;
}
