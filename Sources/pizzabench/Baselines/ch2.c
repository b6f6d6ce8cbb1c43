/* ch2: tills over HTTP/2 that cost less than the server, on libnghttp2 and OpenSSL (h2load cannot give each order a
 * key of its own): CONNECTIONS threads, each one TLS connection (ALPN h2) keeping STREAMS POST /v1/orders open at
 * once (two pizzas, placed, its own Idempotency-Key), a new one as each answer ends, for SECONDS.
 * Prints one line: ORDERS FAILED P50_US P99_US USER_SECONDS SYSTEM_SECONDS (its own CPU, for the client's cost
 * beside pizzad's).
 * Build: gcc -O2 -pthread -o ch2 ch2.c -lnghttp2 -lssl -lcrypto
 * Usage: ch2 HOST PORT CAFILE TOKEN CONNECTIONS STREAMS SECONDS */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
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
static const char *host, *token; static int port, streams; static double deadline; static SSL_CTX *ctx; static long run;
static const char body[] = "{\"customer\":\"bench\",\"items\":[{\"kind\":\"chicken\",\"size\":\"L\",\"extras\":[\"olives\"]},"
                           "{\"kind\":\"cheese\"}],\"place\":true}";
#define MAX_LATENCIES 4000000
static double *latencies; static long latency_count; static pthread_mutex_t latency_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct { double started; int status; size_t sent; } request;
typedef struct {
  int id; SSL *ssl; nghttp2_session *session; long next, inflight, orders, failed; char key[64], length[16];
} connection;

static ssize_t send_data(nghttp2_session *s, const uint8_t *data, size_t length, int flags, void *user) {
  (void)s; (void)flags; connection *c = user; int written = SSL_write(c->ssl, data, (int)length);
  return written > 0 ? written : NGHTTP2_ERR_CALLBACK_FAILURE;
}

static ssize_t read_body(nghttp2_session *s, int32_t stream, uint8_t *buffer, size_t length, uint32_t *flags,
                         nghttp2_data_source *source, void *user) {
  (void)s; (void)stream; (void)user; request *r = source->ptr; size_t left = sizeof body - 1 - r->sent;
  size_t n = left < length ? left : length; memcpy(buffer, body + r->sent, n); r->sent += n;
  if (r->sent == sizeof body - 1) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return (ssize_t)n;
}

static void submit(connection *c) {
  request *r = calloc(1, sizeof *r); r->started = now();
  snprintf(c->key, sizeof c->key, "ch2-%lx-%d-%ld", run, c->id, c->next++);
  snprintf(c->length, sizeof c->length, "%zu", sizeof body - 1);
  char authorization[256]; snprintf(authorization, sizeof authorization, "Bearer %s", token);
#define H(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE}
  nghttp2_nv headers[] = {H(":method", "POST"), H(":scheme", "https"), H(":authority", "localhost"),
                          H(":path", "/v1/orders"), H("authorization", authorization),
                          H("content-type", "application/json"), H("idempotency-key", c->key),
                          H("content-length", c->length)};
  nghttp2_data_provider provider = {.source.ptr = r, .read_callback = read_body};
  if (nghttp2_submit_request(c->session, NULL, headers, sizeof headers / sizeof *headers, &provider, r) < 0) abort();
  c->inflight++;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user) {
  (void)flags; (void)user; (void)valuelen;
  if (frame->hd.type == NGHTTP2_HEADERS && namelen == 7 && !memcmp(name, ":status", 7)) {
    request *r = nghttp2_session_get_stream_user_data(s, frame->hd.stream_id);
    if (r) r->status = atoi((const char *)value);
  }
  return 0;
}

static int on_close(nghttp2_session *s, int32_t stream, uint32_t error, void *user) {
  connection *c = user; request *r = nghttp2_session_get_stream_user_data(s, stream);
  if (!r) return 0;
  if (r->status == 201 && error == 0) {
    c->orders++;
    pthread_mutex_lock(&latency_lock);
    if (latency_count < MAX_LATENCIES) latencies[latency_count++] = now() - r->started;
    pthread_mutex_unlock(&latency_lock);
  } else {
    c->failed++;
  }
  free(r); c->inflight--;
  if (now() < deadline) submit(c);
  return 0;
}

static void *client(void *arg) {
  connection *c = arg; int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)}; inet_pton(AF_INET, host, &a.sin_addr);
  if (connect(fd, (void *)&a, sizeof a)) { perror("connect"); exit(1); }
  c->ssl = SSL_new(ctx); SSL_set_fd(c->ssl, fd); SSL_set_tlsext_host_name(c->ssl, "localhost");
  if (SSL_connect(c->ssl) != 1) { ERR_print_errors_fp(stderr); exit(1); }
  const unsigned char *alpn = NULL; unsigned alpn_length = 0; SSL_get0_alpn_selected(c->ssl, &alpn, &alpn_length);
  if (alpn_length != 2 || memcmp(alpn, "h2", 2)) { fprintf(stderr, "the server did not choose h2\n"); exit(1); }
  nghttp2_session_callbacks *callbacks; nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_send_callback(callbacks, send_data);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_close);
  nghttp2_session_client_new(&c->session, callbacks, c); nghttp2_session_callbacks_del(callbacks);
  nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, NULL, 0);
  for (int i = 0; i < streams; i++) submit(c);
  uint8_t buffer[65536];
  while (c->inflight > 0) {
    if (nghttp2_session_send(c->session)) { fprintf(stderr, "send failed\n"); exit(1); }
    int got = SSL_read(c->ssl, buffer, sizeof buffer);
    if (got <= 0) { fprintf(stderr, "the connection ended with %ld streams open\n", c->inflight); c->failed += c->inflight; break; }
    if (nghttp2_session_mem_recv(c->session, buffer, (size_t)got) < 0) { fprintf(stderr, "bad frames\n"); exit(1); }
  }
  nghttp2_session_terminate_session(c->session, NGHTTP2_NO_ERROR); nghttp2_session_send(c->session);
  nghttp2_session_del(c->session); SSL_shutdown(c->ssl); SSL_free(c->ssl); close(fd);
  return 0;
}

static int by_value(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

int main(int argc, char **argv) {
  if (argc != 8 || atoi(argv[5]) < 1 || atoi(argv[5]) > 64 || atoi(argv[6]) < 1 || atof(argv[7]) <= 0) {
    fprintf(stderr, "usage: ch2 HOST PORT CAFILE TOKEN CONNECTIONS(1-64) STREAMS(>0) SECONDS(>0)\n"); return 64;
  }
  host = argv[1]; port = atoi(argv[2]); token = argv[4]; streams = atoi(argv[6]); run = (long)time(0);
  int connections = atoi(argv[5]); signal(SIGPIPE, SIG_IGN);
  latencies = malloc(sizeof(double) * MAX_LATENCIES);
  ctx = SSL_CTX_new(TLS_client_method()); SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
  if (SSL_CTX_load_verify_locations(ctx, argv[3], NULL) != 1) { ERR_print_errors_fp(stderr); return 1; }
  static const unsigned char protocols[] = "\x02h2"; SSL_CTX_set_alpn_protos(ctx, protocols, sizeof protocols - 1);
  deadline = now() + atof(argv[7]);
  pthread_t threads[64]; connection conns[64]; memset(conns, 0, sizeof conns);
  for (int i = 0; i < connections; i++) { conns[i].id = i; pthread_create(&threads[i], 0, client, &conns[i]); }
  long orders = 0, failed = 0;
  for (int i = 0; i < connections; i++) { pthread_join(threads[i], 0); orders += conns[i].orders; failed += conns[i].failed; }
  qsort(latencies, (size_t)latency_count, sizeof *latencies, by_value);
  double p50 = latency_count ? latencies[latency_count / 2] : 0, p99 = latency_count ? latencies[latency_count * 99 / 100] : 0;
  struct rusage usage; getrusage(RUSAGE_SELF, &usage);
  printf("%ld %ld %.0f %.0f %.3f %.3f\n", orders, failed, p50 * 1e6, p99 * 1e6,
         usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6, usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6);
  return 0;
}
