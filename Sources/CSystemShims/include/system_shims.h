#ifndef PIZZAD_SYSTEM_SHIMS_H
#define PIZZAD_SYSTEM_SHIMS_H

/// rename(2) that fails with EEXIST instead of replacing `target` (renameat2 with RENAME_NOREPLACE), which
/// Glibc declares only under _GNU_SOURCE, out of Swift's reach. Returns 0, or -1 with errno set.
int pizzad_rename_noreplace(const char *source, const char *target);

#endif
