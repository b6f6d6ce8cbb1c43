#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include "system_shims.h"

int pizzad_rename_noreplace(const char *source, const char *target) {
    return renameat2(AT_FDCWD, source, AT_FDCWD, target, RENAME_NOREPLACE);
}
