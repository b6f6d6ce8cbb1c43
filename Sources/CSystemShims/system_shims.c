#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "system_shims.h"

/// Fills `address` for `path`; returns the length to pass with it, or 0 (errno ENAMETOOLONG) when it does not fit.
static socklen_t unix_address(const char *path, struct sockaddr_un *address) {
    size_t length = strlen(path);
    if (length >= sizeof(address->sun_path)) {
        errno = ENAMETOOLONG;
        return 0;
    }
    memset(address, 0, sizeof(*address));
    address->sun_family = AF_UNIX;
    memcpy(address->sun_path, path, length);
    if (path[0] == '@') {
        address->sun_path[0] = '\0';  // abstract: the name is exactly `length` bytes, no terminator
        return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length);
    }
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length + 1);
}

int pizzad_connect_unix(int fd, const char *path) {
    struct sockaddr_un address;
    socklen_t length = unix_address(path, &address);
    return length == 0 ? -1 : connect(fd, (struct sockaddr *)&address, length);
}

int pizzad_bind_unix(int fd, const char *path) {
    struct sockaddr_un address;
    socklen_t length = unix_address(path, &address);
    return length == 0 ? -1 : bind(fd, (struct sockaddr *)&address, length);
}

ssize_t pizzad_sendto_unix(int fd, const void *message, size_t size, int flags, const char *path) {
    struct sockaddr_un address;
    socklen_t length = unix_address(path, &address);
    return length == 0 ? -1 : sendto(fd, message, size, flags, (struct sockaddr *)&address, length);
}

int pizzad_rename_noreplace(const char *source, const char *target) {
    return renameat2(AT_FDCWD, source, AT_FDCWD, target, RENAME_NOREPLACE);
}

int pizzad_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

pid_t pizzad_lock_holder(const char *path, off_t start, off_t length) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct flock probe = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start, .l_len = length};
    int result = fcntl(fd, F_GETLK, &probe);
    int saved = errno;
    close(fd);
    if (result != 0) {
        errno = saved;
        return -1;
    }
    return probe.l_type == F_UNLCK ? 0 : probe.l_pid;
}

int pizzad_pipe_cloexec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

/* The Swift runtime's hook (libswift_Concurrency: a pointer, NULL until someone installs one). */
extern void *swift_task_enqueueGlobal_hook;

int pizzad_install_enqueue_global_hook(void *hook) {
  void *expected = NULL;
  return __atomic_compare_exchange_n(&swift_task_enqueueGlobal_hook, &expected, hook, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST);
}
