/* ctls: a till that opens a new TLS connection for every order, as a till that sleeps between customers does:
 * CLIENTS threads, each connecting over TCP, shaking hands with TLS (OpenSSL), sending one POST /v1/orders (two
 * pizzas, placed, its own Idempotency-Key, Connection: close) and reading the answer to the end, for SECONDS.
 * With MODE resume each thread offers the session of its last connection (a TLS 1.3 ticket, which the server
 * sends with its first answer), as a browser or an HTTP client library does; with MODE full it never does.
 * Prints one line: ORDERS FAILED RESUMED HANDSHAKES USER_SECONDS SYSTEM_SECONDS (its own CPU, for the client's
 * cost beside pizzad's).
 * Build: gcc -O2 -pthread -o ctls ctls.c -lssl -lcrypto
 * Usage: ctls HOST PORT CAFILE TOKEN CLIENTS SECONDS resume|full */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static const char *host, *token; static int port, resume; static double deadline; static SSL_CTX *ctx; static long run;
static long orders[256], failed[256], resumed[256], handshakes[256];

static int connect_tcp(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0); int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, host, &a.sin_addr);
  if (connect(fd, (void *)&a, sizeof a)) { close(fd); return -1; }
  return fd;
}

static void *client(void *arg) {
  int c = (int)(long)arg; SSL_SESSION *session = NULL; long n = 0;
  const char *body = "{\"customer\":\"bench\",\"items\":[{\"kind\":\"chicken\",\"size\":\"L\",\"extras\":[\"olives\"]},"
                     "{\"kind\":\"cheese\"}],\"place\":true}";
  char request[1024], answer[8192];
  while (now() < deadline) {
    int fd = connect_tcp();
    if (fd < 0) { failed[c]++; usleep(1000); continue; }
    SSL *ssl = SSL_new(ctx); SSL_set_fd(ssl, fd); SSL_set_tlsext_host_name(ssl, "localhost");
    if (resume && session) SSL_set_session(ssl, session);
    if (SSL_connect(ssl) != 1) { failed[c]++; SSL_free(ssl); close(fd); continue; }
    handshakes[c]++;
    if (SSL_session_reused(ssl)) resumed[c]++;
    int len = snprintf(request, sizeof request,
                       "POST /v1/orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\n"
                       "Content-Type: application/json\r\nIdempotency-Key: ctls-%lx-%d-%ld\r\nConnection: close\r\n"
                       "Content-Length: %zu\r\n\r\n%s", token, run, c, n, strlen(body), body);
    int ok = SSL_write(ssl, request, len) == len;
    int have = 0, got;
    while (ok && (got = SSL_read(ssl, answer + have, (int)sizeof answer - 1 - have)) > 0) have += got;
    answer[have] = 0;
    if (ok && have > 12 && strncmp(answer, "HTTP/1.1 201", 12) == 0) orders[c]++; else failed[c]++;
    if (resume) { SSL_SESSION *next = SSL_get1_session(ssl); if (next) { if (session) SSL_SESSION_free(session); session = next; } }
    SSL_shutdown(ssl); SSL_free(ssl); close(fd); n++;
  }
  if (session) SSL_SESSION_free(session);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 8 || atoi(argv[5]) < 1 || atoi(argv[5]) > 256 || atof(argv[6]) <= 0 ||
      (strcmp(argv[7], "resume") && strcmp(argv[7], "full"))) {
    fprintf(stderr, "usage: ctls HOST PORT CAFILE TOKEN CLIENTS(1-256) SECONDS(>0) resume|full\n"); return 64;
  }
  host = argv[1]; port = atoi(argv[2]); token = argv[4]; resume = !strcmp(argv[7], "resume"); run = (long)time(0);
  int clients = atoi(argv[5]);
  signal(SIGPIPE, SIG_IGN);
  ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
  if (SSL_CTX_load_verify_locations(ctx, argv[3], NULL) != 1) { ERR_print_errors_fp(stderr); return 1; }
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT);
  deadline = now() + atof(argv[6]);
  pthread_t t[256];
  for (int c = 0; c < clients; c++) pthread_create(&t[c], 0, client, (void *)(long)c);
  long total = 0, bad = 0, reused = 0, shakes = 0;
  for (int c = 0; c < clients; c++) {
    pthread_join(t[c], 0); total += orders[c]; bad += failed[c]; reused += resumed[c]; shakes += handshakes[c];
  }
  struct rusage usage; getrusage(RUSAGE_SELF, &usage);
  printf("%ld %ld %ld %ld %.3f %.3f\n", total, bad, reused, shakes,
         usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6, usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6);
  return 0;
}
