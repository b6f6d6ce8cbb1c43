#ifndef PIZZAD_SYSTEM_SHIMS_H
#define PIZZAD_SYSTEM_SHIMS_H

/// rename(2) that fails with EEXIST instead of replacing `target` (renameat2 with RENAME_NOREPLACE), which
/// Glibc declares only under _GNU_SOURCE, out of Swift's reach. Returns 0, or -1 with errno set.
int pizzad_rename_noreplace(const char *source, const char *target);

/// pipe2(2) with O_CLOEXEC: both ends made close-on-exec at once, so that a child another thread spawns meanwhile
/// inherits neither (pipe2 is declared only under _GNU_SOURCE). Returns 0, or -1 with errno set.
int pizzad_pipe_cloexec(int ends[2]);

#include <spawn.h>
#include <stddef.h>
#include <sys/types.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34): the child closes every descriptor from `lowest` up, so
/// it inherits nothing it was not given. Declared only under _GNU_SOURCE. Returns 0 or an error number.
int pizzad_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// connect(2), bind(2) and sendto(2) for the Unix socket at `path` (a leading '@' names an abstract socket, as
/// NOTIFY_SOCKET may): the one place that fills a sockaddr_un. Return what the call returns; -1 with errno
/// ENAMETOOLONG when `path` does not fit.
int pizzad_connect_unix(int fd, const char *path);
int pizzad_bind_unix(int fd, const char *path);
ssize_t pizzad_sendto_unix(int fd, const void *message, size_t length, int flags, const char *path);

/// The process that holds a POSIX record lock on bytes [start, start + length) of the file at `path`, found with
/// F_GETLK (which takes nothing): its pid, 0 when no other process holds one (this process's own locks never
/// show), or -1 with errno set when the file cannot be opened. SQLite's connections hold such locks for as long as
/// they are open (in WAL mode a shared lock on the `-shm` file's DMS byte), which tells whether anyone has a
/// database open.
pid_t pizzad_lock_holder(const char *path, off_t start, off_t length);

/// Sets the Swift runtime's swift_task_enqueueGlobal_hook (the global executor's enqueue) to `hook` if nothing has
/// set it yet, atomically; 1 when it was set. Reached by name at link time, which a static runtime allows: SwiftNIO
/// looks it up with dlsym, which finds nothing in an executable that exports nothing (pizzad's release build).
int pizzad_install_enqueue_global_hook(void *hook);

#endif
