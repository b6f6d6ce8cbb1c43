/* tlsfloor: the floor of a TLS 1.3 connection per order, in C on the system's OpenSSL: accept, handshake (a
 * resumed session when the client offers a ticket; OpenSSL sends two with the first answer, as BoringSSL does for
 * pizzad), read one HTTP request with its body, answer 201 with a two-byte body, close. No order is made: its CPU
 * per connection is what a new connection costs a server before any work, beside pizzad's reconnecting till.
 * Prints "ready" once it listens on 127.0.0.1:PORT; runs until killed.
 * Build: gcc -O2 -pthread -o tlsfloor tlsfloor.c -lssl -lcrypto
 * Usage: tlsfloor PORT CERT KEY THREADS */
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
#include <sys/socket.h>
#include <unistd.h>

static SSL_CTX *ctx; static int listener;
static const char answer[] = "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                             "Connection: close\r\n\r\n{}";

static void *serve(void *unused) {
  (void)unused; char buf[16384];
  for (;;) {
    int fd = accept(listener, 0, 0); if (fd < 0) continue;
    int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    SSL *ssl = SSL_new(ctx); SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) == 1) {
      int have = 0, got; long need = -1;
      while ((got = SSL_read(ssl, buf + have, (int)sizeof buf - 1 - have)) > 0) {
        have += got; buf[have] = 0;
        char *end = strstr(buf, "\r\n\r\n");
        if (end) {
          char *cl = strcasestr(buf, "Content-Length:");
          long length = cl ? atol(cl + 15) : 0;
          need = (end + 4 - buf) + length;
          if (have >= need) break;
        }
      }
      if (need >= 0 && have >= need) SSL_write(ssl, answer, (int)sizeof answer - 1);
      SSL_shutdown(ssl);
    }
    SSL_free(ssl); close(fd);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: tlsfloor PORT CERT KEY THREADS\n"); return 64; }
  signal(SIGPIPE, SIG_IGN);
  ctx = SSL_CTX_new(TLS_server_method());
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx, argv[2]) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, argv[3], SSL_FILETYPE_PEM) != 1) {
    ERR_print_errors_fp(stderr); return 1;
  }
  listener = socket(AF_INET, SOCK_STREAM, 0); int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1]))};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (bind(listener, (void *)&a, sizeof a) || listen(listener, 1024)) { perror("bind"); return 1; }
  int threads = atoi(argv[4]); pthread_t t[64];
  for (int i = 0; i < threads && i < 64; i++) pthread_create(&t[i], 0, serve, 0);
  printf("ready\n"); fflush(stdout);
  for (int i = 0; i < threads && i < 64; i++) pthread_join(t[i], 0);
  return 0;
}
