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
 * ORDER is what each order writes (default two-pizzas, the rows above). realistic is a shop's whole order as pizzad
 * writes pizzabench whole-order's (CONTRACT 17): the cart with its delivery address and figures, two pizzas, two
 * product lines (order_items), a delivery fee, two history rows and an audit entry of the whole order's longer text.
 * paid is that order, then a second request (order.pay, its order id read from the first answer): a payments row,
 * the cart's paid figure updated and an audit entry holding the order before and after, as pizzad's does.
 * Build: gcc -O2 -pthread -Wno-deprecated-declarations -o socketwork socketwork.c -lsqlite3 -lcrypto
 * Usage: socketwork DB MIGRATIONS_DIR CLIENTS SECONDS [two-pizzas|realistic|paid]   (DB is deleted first).
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

/* A request waiting for the writer, then its answer waiting for its loop; pay is the order a payment is for. */
struct job { int conn; long id; long pay; struct job *next; int len; char answer[2400]; };
enum { TWO_PIZZAS, REALISTIC, PAID };
static int mode = TWO_PIZZAS;

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

/* The realistic order's text as pizzad writes it (its ids, ref and times put in); with a payment when paid_at. */
static int whole_order(char *out, size_t size, long long id, const char *ref, const char *at, const char *paid_at) {
    char payments[256] = "";
    if (paid_at)
        snprintf(payments, sizeof payments,
                 "{\"id\":%lld,\"tender\":\"card\",\"amount\":3490,\"at\":\"%s\",\"by\":{\"uid\":0,\"name\":\"root\","
                 "\"pid\":4242}}", id * 5 + 5, paid_at);
    return snprintf(out, size,
        "{\"id\":%lld,\"ref\":\"%s\",\"customer\":\"bench\",\"note\":null,\"status\":\"placed\",\"fulfilment\":{\"type\":"
        "\"delivery\",\"phone\":\"030 1234567\",\"address\":{\"street\":\"Hauptstr. 5\",\"postcode\":\"10115\",\"city\":"
        "\"Berlin\"}},\"items\":[{\"id\":%lld,\"kind\":\"chicken\",\"size\":\"L\",\"crust\":\"classic\",\"chiliSauce\":false,"
        "\"ketchup\":false,\"extras\":[\"olives\"],\"quantity\":1,\"unitPrice\":1330,\"price\":1330,\"tax\":\"food\","
        "\"basisPoints\":700},{\"id\":%lld,\"kind\":\"cheese\",\"size\":\"M\",\"crust\":\"classic\",\"chiliSauce\":false,"
        "\"ketchup\":false,\"extras\":[],\"quantity\":1,\"unitPrice\":900,\"price\":900,\"tax\":\"food\",\"basisPoints\":700},"
        "{\"id\":%lld,\"product\":\"cola-033\",\"name\":\"Cola 0.33 l\",\"category\":\"drinks\",\"quantity\":2,\"options\":[],"
        "\"unitPrice\":250,\"price\":500,\"tax\":\"drinks\",\"basisPoints\":1900},{\"id\":%lld,\"product\":\"garlic-bread\","
        "\"name\":\"Garlic bread\",\"category\":\"sides\",\"quantity\":1,\"options\":[\"extra-dip\"],\"unitPrice\":510,"
        "\"price\":510,\"tax\":\"food\",\"basisPoints\":700}],\"subtotal\":3240,\"discounts\":[],\"fees\":[{\"kind\":"
        "\"delivery\",\"amount\":250,\"tax\":\"food\",\"basisPoints\":700}],\"total\":3490,\"taxes\":[{\"rate\":\"drinks\","
        "\"basisPoints\":1900,\"gross\":500,\"net\":420,\"tax\":80},{\"rate\":\"food\",\"basisPoints\":700,\"gross\":2990,"
        "\"net\":2794,\"tax\":196}],\"payments\":[%s],\"paid\":%d,\"balance\":%d,\"currency\":\"EUR\",\"createdAt\":\"%s\","
        "\"updatedAt\":\"%s\",\"history\":[{\"from\":null,\"to\":\"open\",\"at\":\"%s\",\"actor\":{\"uid\":0,\"name\":\"root\","
        "\"pid\":4242},\"reason\":null},{\"from\":\"open\",\"to\":\"placed\",\"at\":\"%s\",\"actor\":{\"uid\":0,\"name\":"
        "\"root\",\"pid\":4242},\"reason\":null}]}",
        id, ref, id * 5 + 1, id * 5 + 2, id * 5 + 3, id * 5 + 4, payments, paid_at ? 3490 : 0, paid_at ? 0 : 3490, at,
        paid_at ? paid_at : at, at, at);
}

/* The two-pizza order's text as pizzad writes it since CONTRACT 17 (pickup, each item's rate, the figures, the
 * history): what its entry holds and its answer carries. */
static int two_pizza_order(char *out, size_t size, long long id, const char *ref, const char *at) {
    return snprintf(out, size,
        "{\"id\":%lld,\"ref\":\"%s\",\"customer\":\"bench\",\"note\":null,\"status\":\"placed\",\"fulfilment\":{\"type\":"
        "\"pickup\"},\"items\":[{\"id\":%lld,\"kind\":\"chicken\",\"size\":\"L\",\"crust\":\"classic\",\"chiliSauce\":false,"
        "\"ketchup\":false,\"extras\":[\"olives\"],\"quantity\":1,\"unitPrice\":1330,\"price\":1330,\"tax\":\"none\","
        "\"basisPoints\":0},{\"id\":%lld,\"kind\":\"cheese\",\"size\":\"M\",\"crust\":\"classic\",\"chiliSauce\":false,"
        "\"ketchup\":false,\"extras\":[],\"quantity\":1,\"unitPrice\":900,\"price\":900,\"tax\":\"none\",\"basisPoints\":0}],"
        "\"subtotal\":2230,\"discounts\":[],\"fees\":[],\"total\":2230,\"taxes\":[{\"rate\":\"none\",\"basisPoints\":0,"
        "\"gross\":2230,\"net\":2230,\"tax\":0}],\"payments\":[],\"paid\":0,\"balance\":2230,\"currency\":\"EUR\","
        "\"createdAt\":\"%s\",\"updatedAt\":\"%s\",\"history\":[{\"from\":null,\"to\":\"open\",\"at\":\"%s\",\"actor\":"
        "{\"uid\":0,\"name\":\"root\",\"pid\":4242},\"reason\":null},{\"from\":\"open\",\"to\":\"placed\",\"at\":\"%s\","
        "\"actor\":{\"uid\":0,\"name\":\"root\",\"pid\":4242},\"reason\":null}]}",
        id, ref, id * 2, id * 2 + 1, at, at, at, at);
}

/* SHA-256 over the entry's texts and the previous hash, into hex; prev becomes it. */
static void chain(char prev[65], char hex[65], const char *before, int before_len, const char *after, int after_len) {
    unsigned char md[32]; SHA256_CTX c; SHA256_Init(&c);
    if (before) SHA256_Update(&c, before, before_len);
    SHA256_Update(&c, after, after_len); SHA256_Update(&c, prev, 64); SHA256_Final(md, &c);
    for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]);
}

static sqlite3_stmt *w_cart, *w_pizza, *w_item, *w_fee, *w_hist, *w_aud, *w_pay, *w_paid;

static void step(sqlite3_stmt *s, const char *what) { if (sqlite3_step(s) != SQLITE_DONE) die(db, what); sqlite3_reset(s); }

/* The realistic order's rows and its entry; its text is the answer. */
static int write_realistic(struct job *j, const char *ref, const char *at, char prev[65], char *json, size_t size) {
    sqlite3_bind_text(w_cart, 1, ref, -1, SQLITE_TRANSIENT); sqlite3_bind_text(w_cart, 2, at, -1, SQLITE_TRANSIENT);
    step(w_cart, "cart");
    sqlite3_int64 id = sqlite3_last_insert_rowid(db);
    const char *kinds[2] = {"chicken", "cheese"}, *sizes[2] = {"L", "M"}, *extras[2] = {"olives", ""};
    int prices[2] = {1330, 900};
    for (int k = 0; k < 2; k++) {
        sqlite3_bind_int64(w_pizza, 1, id); sqlite3_bind_text(w_pizza, 2, kinds[k], -1, SQLITE_STATIC);
        sqlite3_bind_text(w_pizza, 3, sizes[k], -1, SQLITE_STATIC); sqlite3_bind_text(w_pizza, 4, extras[k], -1, SQLITE_STATIC);
        sqlite3_bind_int(w_pizza, 5, prices[k]);
        step(w_pizza, "pizza");
    }
    const char *products[2] = {"cola-033", "garlic-bread"}, *names[2] = {"Cola 0.33 l", "Garlic bread"};
    const char *categories[2] = {"drinks", "sides"}, *options[2] = {"", "extra-dip"}, *taxes[2] = {"drinks", "food"};
    int quantities[2] = {2, 1}, units[2] = {250, 510}, bps[2] = {1900, 700};
    for (int k = 0; k < 2; k++) {
        sqlite3_bind_int64(w_item, 1, id); sqlite3_bind_text(w_item, 2, products[k], -1, SQLITE_STATIC);
        sqlite3_bind_text(w_item, 3, names[k], -1, SQLITE_STATIC); sqlite3_bind_text(w_item, 4, categories[k], -1, SQLITE_STATIC);
        sqlite3_bind_int(w_item, 5, quantities[k]); sqlite3_bind_text(w_item, 6, options[k], -1, SQLITE_STATIC);
        sqlite3_bind_int(w_item, 7, units[k]); sqlite3_bind_text(w_item, 8, taxes[k], -1, SQLITE_STATIC);
        sqlite3_bind_int(w_item, 9, bps[k]);
        step(w_item, "order_items");
    }
    sqlite3_bind_int64(w_fee, 1, id); step(w_fee, "fee");
    const char *from[2] = {NULL, "open"}, *to[2] = {"open", "placed"};
    for (int k = 0; k < 2; k++) {
        sqlite3_bind_int64(w_hist, 1, id);
        if (from[k]) sqlite3_bind_text(w_hist, 2, from[k], -1, SQLITE_STATIC); else sqlite3_bind_null(w_hist, 2);
        sqlite3_bind_text(w_hist, 3, to[k], -1, SQLITE_STATIC); sqlite3_bind_text(w_hist, 4, at, -1, SQLITE_TRANSIENT);
        step(w_hist, "history");
    }
    int jl = whole_order(json, size, id, ref, at, NULL);
    char hex[65]; chain(prev, hex, NULL, 0, json, jl);
    sqlite3_bind_text(w_aud, 1, at, -1, SQLITE_TRANSIENT); sqlite3_bind_text(w_aud, 2, "created", -1, SQLITE_STATIC);
    sqlite3_bind_int64(w_aud, 3, id); sqlite3_bind_null(w_aud, 4); sqlite3_bind_text(w_aud, 5, json, jl, SQLITE_TRANSIENT);
    sqlite3_bind_text(w_aud, 6, prev, 64, SQLITE_TRANSIENT); sqlite3_bind_text(w_aud, 7, hex, 64, SQLITE_TRANSIENT);
    step(w_aud, "audit");
    memcpy(prev, hex, 65);
    (void)j;
    return jl;
}

/* A payment of the realistic order j->pay for its total: its row, the cart's paid figure and an entry holding the
 * order before and after (the before text made again from the order's id, as pizzad keeps it). */
static int write_payment(struct job *j, const char *at, char prev[65], char *json, size_t size) {
    char ref[64], before[2048], created[32];
    sqlite3_int64 id = j->pay;
    snprintf(ref, sizeof ref, "c%d-%ld", j->conn, tickets[j->conn]);
    snprintf(created, sizeof created, "%s", at);
    int bl = whole_order(before, sizeof before, id, ref, created, NULL);
    sqlite3_bind_int64(w_pay, 1, id); sqlite3_bind_text(w_pay, 2, at, -1, SQLITE_TRANSIENT); step(w_pay, "payment");
    sqlite3_bind_text(w_paid, 1, at, -1, SQLITE_TRANSIENT); sqlite3_bind_int64(w_paid, 2, id);
    step(w_paid, "paid");
    if (sqlite3_changes(db) != 1) die(db, "paid: no such order");
    int jl = whole_order(json, size, id, ref, created, at);
    char hex[65]; chain(prev, hex, before, bl, json, jl);
    sqlite3_bind_text(w_aud, 1, at, -1, SQLITE_TRANSIENT); sqlite3_bind_text(w_aud, 2, "paid", -1, SQLITE_STATIC);
    sqlite3_bind_int64(w_aud, 3, id); sqlite3_bind_text(w_aud, 4, before, bl, SQLITE_TRANSIENT);
    sqlite3_bind_text(w_aud, 5, json, jl, SQLITE_TRANSIENT);
    sqlite3_bind_text(w_aud, 6, prev, 64, SQLITE_TRANSIENT); sqlite3_bind_text(w_aud, 7, hex, 64, SQLITE_TRANSIENT);
    step(w_aud, "audit");
    memcpy(prev, hex, 65);
    return jl;
}

static void *writer(void *unused) {
    (void)unused;
    sqlite3_stmt *cart = prep(db, "INSERT INTO carts (ref, customer, note, status, currency, total, created_at, updated_at, subtotal) VALUES (?1, 'bench', NULL, 'placed', 'EUR', 2230, ?2, ?2, 2230)");
    sqlite3_stmt *pz = prep(db, "INSERT INTO pizzas (cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price, tax, tax_bp) VALUES (?1, ?2, ?3, 'classic', 0, 0, ?5, 1, ?4, 'none', 0)");
    sqlite3_stmt *hist = prep(db, "INSERT INTO status_history (cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid) VALUES (?1, ?2, ?3, ?4, 0, 'root', 4242)");
    sqlite3_stmt *aud = prep(db, "INSERT INTO audit_log (at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before, after, prev_hash, hash) VALUES (?1, 0, 'root', 4242, 'created', ?2, 'placed', NULL, NULL, ?3, ?4, ?5)");
    sqlite3_stmt *beg = prep(db, "BEGIN IMMEDIATE"), *com = prep(db, "COMMIT");
    w_cart = prep(db, "INSERT INTO carts (ref, customer, note, status, currency, total, created_at, updated_at, fulfilment, "
                      "phone, street, postcode, city, subtotal, paid, parts) VALUES (?1, 'bench', NULL, 'placed', 'EUR', 3490, "
                      "?2, ?2, 'delivery', '030 1234567', 'Hauptstr. 5', '10115', 'Berlin', 3240, 0, 13)");
    w_pizza = prep(db, "INSERT INTO pizzas (cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price, "
                       "tax, tax_bp) VALUES (?1, ?2, ?3, 'classic', 0, 0, ?4, 1, ?5, 'food', 700)");
    w_item = prep(db, "INSERT INTO order_items (cart_id, product, name, category, quantity, options, unit_price, tax, tax_bp) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    w_fee = prep(db, "INSERT INTO fees (cart_id, kind, amount, tax, tax_bp) VALUES (?1, 'delivery', 250, 'food', 700)");
    w_hist = hist;
    w_aud = prep(db, "INSERT INTO audit_log (at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, "
                     "before, after, prev_hash, hash) VALUES (?1, 0, 'root', 4242, ?2, ?3, 'placed', NULL, ?4, ?5, ?6, ?7)");
    w_pay = prep(db, "INSERT INTO payments (cart_id, tender, amount, at, actor_uid, actor_name, actor_pid) "
                     "VALUES (?1, 'card', 3490, ?2, 0, 'root', 4242)");
    w_paid = prep(db, "UPDATE carts SET paid = 3490, updated_at = ?1 WHERE id = ?2");
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
            if (mode != TWO_PIZZAS) {
                char json[2048];
                int jl;
                if (j->pay) jl = write_payment(j, at, prev, json, sizeof json);
                else {
                    snprintf(ref, sizeof ref, "c%d-%ld", j->conn, ++tickets[j->conn]);
                    jl = write_realistic(j, ref, at, prev, json, sizeof json);
                }
                j->len = snprintf(j->answer, sizeof j->answer, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":%.*s}\n", j->id, jl, json);
                continue;
            }
            snprintf(ref, sizeof ref, "c%d-%ld", j->conn, ++tickets[j->conn]);
            sqlite3_bind_text(cart, 1, ref, -1, SQLITE_TRANSIENT); sqlite3_bind_text(cart, 2, at, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(cart) != SQLITE_DONE) { die(db, "cart"); }
            sqlite3_reset(cart);
            sqlite3_int64 id = sqlite3_last_insert_rowid(db);
            const char *kinds[2] = {"chicken", "cheese"}, *sizes[2] = {"L", "M"}, *extras[2] = {"olives", ""};
            int prices[2] = {1330, 900};
            for (int k = 0; k < 2; k++) {
                sqlite3_bind_int64(pz, 1, id); sqlite3_bind_text(pz, 2, kinds[k], -1, SQLITE_STATIC);
                sqlite3_bind_text(pz, 3, sizes[k], -1, SQLITE_STATIC); sqlite3_bind_int(pz, 4, prices[k]);
                sqlite3_bind_text(pz, 5, extras[k], -1, SQLITE_STATIC);
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
            char json[1400];
            int jl = two_pizza_order(json, sizeof json, id, ref, at);
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
                j->conn = conn; j->id = idp ? atol(idp + 5) : 0; j->next = 0; j->pay = 0;
                if (mode == PAID && memmem(start, end - start, "order.pay", 9)) {
                    char *order = memmem(start, end - start, "\"params\":{\"id\":", 15);
                    j->pay = order ? atol(order + 15) : 0;
                }
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

/* Sends one line and reads one answer line into answer (NUL-terminated); in holds what came after it. */
static void roundtrip(int fd, const char *line, int len, char *in, int *have, char *answer, int size) {
    if (write(fd, line, len) != len) abort();
    for (;;) {
        char *nl = *have ? memchr(in, '\n', *have) : 0;
        if (nl) {
            int used = (int)(nl - in) + 1, keep = used < size ? used : size;
            memcpy(answer, in, keep - 1); answer[keep - 1] = 0;
            *have -= used; memmove(in, nl + 1, *have);
            return;
        }
        ssize_t got = read(fd, in + *have, 4096 - *have);
        if (got <= 0) abort();
        *have += (int)got;
    }
}

static void *client(void *arg) {
    int c = (int)(intptr_t)arg;
    const char *prefix = mode == TWO_PIZZAS
        ? "{\"jsonrpc\":\"2.0\",\"method\":\"order.create\",\"params\":{\"customer\":\"bench\",\"items\":"
          "[{\"kind\":\"chicken\",\"size\":\"L\",\"extras\":[\"olives\"]},{\"kind\":\"cheese\"}],\"place\":true},\"id\":"
        : "{\"jsonrpc\":\"2.0\",\"method\":\"order.create\",\"params\":{\"customer\":\"bench\",\"items\":"
          "[{\"kind\":\"chicken\",\"size\":\"L\",\"extras\":[\"olives\"]},{\"kind\":\"cheese\"},{\"product\":\"cola-033\","
          "\"quantity\":2},{\"product\":\"garlic-bread\",\"options\":[\"extra-dip\"]}],\"fulfilment\":{\"type\":\"delivery\","
          "\"phone\":\"030 1234567\",\"address\":{\"street\":\"Hauptstr. 5\",\"postcode\":\"10115\",\"city\":\"Berlin\"}},"
          "\"place\":true},\"id\":";
    char line[1024], in[4096], answer[4096]; long count = 0; int have = 0;
    static pthread_mutex_t hm = PTHREAD_MUTEX_INITIALIZER;
    uint32_t hist[4096] = {0};
    while (now() < deadline) {
        int len = snprintf(line, sizeof line, "%s%ld}\n", prefix, 2 * count + 1);
        double begin = now();
        roundtrip(cfds[c], line, len, in, &have, answer, sizeof answer);
        if (mode == PAID) { /* the order's id is the result's first member */
            char *order = strstr(answer, "\"result\":{\"id\":");
            if (!order) abort();
            len = snprintf(line, sizeof line,
                           "{\"jsonrpc\":\"2.0\",\"method\":\"order.pay\",\"params\":{\"id\":%ld,\"tender\":\"card\","
                           "\"amount\":3490},\"id\":%ld}\n", atol(order + 15), 2 * count + 2);
            roundtrip(cfds[c], line, len, in, &have, answer, sizeof answer);
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
    if (argc < 5) { fprintf(stderr, "usage: socketwork DB MIGRATIONS CLIENTS SECONDS [two-pizzas|realistic|paid]\n"); return 2; }
    if (argc > 5) {
        if (!strcmp(argv[5], "realistic")) mode = REALISTIC;
        else if (!strcmp(argv[5], "paid")) mode = PAID;
        else if (strcmp(argv[5], "two-pizzas")) { fprintf(stderr, "ORDER: two-pizzas, realistic or paid\n"); return 2; }
    }
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
