/* ctill: a till of a few lines in C over pizzad's control socket, to measure pizzad's CPU without pizzabench's
 * Swift clients beside it: CLIENTS threads, each on a blocking Unix socket, sending order.create (two pizzas,
 * placed, a unique ref) and reading the answer, for SECONDS. With PROGRESS=FILE in the environment it writes the
 * orders answered so far into FILE ten times a second, so that a script can read pizzad's CPU from /proc/PID/stat
 * over a window and divide by the orders of the same window.
 * Build: gcc -O2 -pthread -o ctill ctill.c
 * Usage: [PROGRESS=FILE] ctill SOCKET CLIENTS SECONDS   (prints orders/s at the end) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
static const char *path; static double deadline; static long counts[256]; static long run;
static void *client(void *arg){
  int c=(int)(long)arg; int fd=socket(AF_UNIX,SOCK_STREAM,0); struct sockaddr_un a={.sun_family=AF_UNIX};
  strncpy(a.sun_path,path,sizeof a.sun_path-1); if(connect(fd,(void*)&a,sizeof a)){perror("connect");exit(1);}
  char line[600], in[8192]; int have=0; long n=0;
  while(now()<deadline){
    int len=snprintf(line,sizeof line,"{\"jsonrpc\":\"2.0\",\"method\":\"order.create\",\"params\":{\"ref\":\"%lxc%d-%ld\",\"customer\":\"bench\",\"items\":[{\"kind\":\"chicken\",\"size\":\"L\",\"extras\":[\"olives\"]},{\"kind\":\"cheese\"}],\"place\":true},\"id\":%ld}\n",run,c,n+1,n+1);
    if(write(fd,line,len)!=len) abort();
    for(;;){ char *nl=have?memchr(in,'\n',have):0;
      if(nl){ if(!strstr(in,"\"result\"")){fprintf(stderr,"bad: %.200s\n",in);exit(1);} int used=(int)(nl-in)+1; have-=used; memmove(in,nl+1,have); break;}
      ssize_t got=read(fd,in+have,sizeof in-have); if(got<=0) abort(); have+=(int)got; }
    n++; __atomic_store_n(&counts[c],n,__ATOMIC_RELAXED);
  }
  counts[c]=n; return 0;
}
int main(int argc,char**argv){
  if(argc!=4||atoi(argv[2])<1||atoi(argv[2])>256||atof(argv[3])<=0){fprintf(stderr,"usage: [PROGRESS=FILE] ctill SOCKET CLIENTS(1-256) SECONDS(>0)\n");return 64;}
  path=argv[1]; int clients=atoi(argv[2]); double secs=atof(argv[3]); run=(long)time(0);
  deadline=now()+secs; pthread_t t[256]; double t0=now();
  for(int c=0;c<clients;c++) pthread_create(&t[c],0,client,(void*)(long)c);
  const char *prog=getenv("PROGRESS"); if(prog){ while(now()<deadline){ usleep(100000); long s=0; for(int c=0;c<clients;c++) s+=__atomic_load_n(&counts[c],__ATOMIC_RELAXED); FILE*f=fopen(prog,"w"); if(!f){perror(prog);exit(1);} fprintf(f,"%ld\n",s); fclose(f);} }
  long total=0; for(int c=0;c<clients;c++){pthread_join(t[c],0); total+=counts[c];}
  printf("%.0f orders/s\n", total/(now()-t0)); return 0; }
