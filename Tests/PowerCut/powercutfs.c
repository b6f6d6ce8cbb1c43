// powercutfs: a FUSE file system for tests that forgets what was not made durable, as a power cut does.
//
// It mounts a view of a backing folder ("the disk") and keeps every change in its own memory:
//   - a file's writes and truncations become durable only at fsync/fdatasync of that file, or at once for a
//     handle opened with O_SYNC/O_DSYNC;
//   - a create, mkdir, rename, unlink or rmdir becomes durable only when its directory is fsynced (each directory
//     on its own, so a rename across folders needs both);
//   - writing "cut" to the control file /.powercut is the power cut: everything not durable is dropped, each file
//     optionally keeping a random prefix of its unsynced writes, the last of them torn at a 512-byte sector
//     boundary, as a disk may leave them. The durable state is written to the backing folder at once, and every
//     later operation fails with EIO (the disk is off) until the file system is unmounted and mounted again.
//   - "prefix 0" makes a cut drop every unsynced write (no prefix kept, nothing torn): for negative controls that
//     must lose data every time; "torn 0" keeps prefixes but never tears; "seed N" makes the choices repeatable.
//   - "arm-syncs N" cuts power when the N-th fsync arrives (that fsync fails), to cut in the middle of a
//     sequence such as a schema upgrade; "arm-ms N" cuts after N milliseconds.
//   - Reading /.powercut gives counters: "state=live syncs=… dropped_bytes=… torn_writes=… lost_entries=… seed=…".
// A clean unmount is a sync: the current state goes to the backing folder.
//
// What it does not simulate: a disk that lies about flushes (durable here means durable), reordering of writes
// within a file beyond the prefix rule, lost metadata (modes, owners and times are kept as they are at the cut),
// sync_file_range (Linux does not make it a durability point either) and syncfs/sync(2), which FUSE does not
// forward. Shared mmap (SQLite's -shm) goes through the kernel's page cache and is written back as ordinary writes.
//
// Build: cc -O2 -Wall -o powercutfs powercutfs.c $(pkg-config --cflags --libs fuse3)
// Run:   [POWERCUTFS_SEED=N] [POWERCUTFS_TORN=0|1] [POWERCUTFS_PREFIX=0|1] powercutfs BACKING MOUNTPOINT [-f]
//        (it serves one request at a time; see main)
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <fuse.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define CONTROL "/.powercut"
#define SECTOR 512
// The handle of an open control file (node handles are aligned pointers, with bit 0 meaning O_SYNC/O_DSYNC).
#define CONTROL_HANDLE 2

typedef struct {
    char *bytes;
    size_t length, capacity;
} buffer;

enum { OP_WRITE, OP_TRUNCATE };
typedef struct {
    int kind;
    off_t offset;  // OP_WRITE: where; OP_TRUNCATE: the new size
    size_t length;
    char *bytes;
} pending_op;

struct node;
typedef struct {
    char *name;
    struct node *node;
} entry;
typedef struct {
    entry *items;
    size_t count, capacity;
} entries;

typedef struct node {
    ino_t ino;
    bool directory;
    mode_t mode;
    uid_t uid;
    gid_t gid;
    struct timespec mtime, ctime;
    // Files: what a reader sees now, what survives a cut, and the writes between them in order.
    buffer current, durable;
    pending_op *pending;
    size_t pending_count, pending_capacity;
    // Directories: the names a reader sees now, and the names that survive a cut.
    entries names, durable_names;
    int references;  // current names + durable names + open handles
} node;

static struct {
    const char *backing;
    node *root;
    ino_t next_ino;
    bool cut;
    bool torn;    // tear one write per file at a cut
    bool prefix;  // keep a random prefix of each file's unsynced writes at a cut (else drop them all)
    unsigned seed;
    long armed_syncs;  // cut when this many more fsyncs arrive (0: not armed)
    struct timespec armed_at;
    bool armed_time;
    // Counters since mount.
    unsigned long syncs, dropped_bytes, torn_writes, lost_entries, kept_writes;
} fs = {.next_ino = 2, .torn = true, .prefix = true};

// MARK: - memory

static void *checked(void *pointer) {
    if (!pointer) {
        fprintf(stderr, "powercutfs: out of memory\n");
        abort();
    }
    return pointer;
}

static void buffer_reserve(buffer *b, size_t length) {
    if (length <= b->capacity) return;
    size_t capacity = b->capacity ? b->capacity : 4096;
    while (capacity < length) capacity *= 2;
    b->bytes = checked(realloc(b->bytes, capacity));
    b->capacity = capacity;
}

static void buffer_resize(buffer *b, size_t length) {
    buffer_reserve(b, length);
    if (length > b->length) memset(b->bytes + b->length, 0, length - b->length);
    b->length = length;
}

static void buffer_write(buffer *b, off_t offset, const char *bytes, size_t length) {
    size_t end = (size_t)offset + length;
    if (end > b->length) buffer_resize(b, end);
    memcpy(b->bytes + offset, bytes, length);
}

static void buffer_copy(buffer *to, const buffer *from) {
    buffer_reserve(to, from->length);
    if (from->length) memcpy(to->bytes, from->bytes, from->length);
    to->length = from->length;
}

static node *node_new(bool directory, mode_t mode) {
    node *n = checked(calloc(1, sizeof *n));
    n->ino = fs.next_ino++;
    n->directory = directory;
    n->mode = (directory ? S_IFDIR : S_IFREG) | (mode & 07777);
    struct fuse_context *context = fuse_get_context();
    n->uid = context ? context->uid : getuid();
    n->gid = context ? context->gid : getgid();
    clock_gettime(CLOCK_REALTIME, &n->mtime);
    n->ctime = n->mtime;
    return n;
}

static void pending_clear(node *n) {
    for (size_t i = 0; i < n->pending_count; i++) free(n->pending[i].bytes);
    n->pending_count = 0;
}

static void node_release(node *n);

static void entries_clear(entries *list) {
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].name);
        node_release(list->items[i].node);
    }
    list->count = 0;
}

static void node_release(node *n) {
    if (--n->references > 0) return;
    free(n->current.bytes);
    free(n->durable.bytes);
    pending_clear(n);
    free(n->pending);
    entries_clear(&n->names);
    entries_clear(&n->durable_names);
    free(n->names.items);
    free(n->durable_names.items);
    free(n);
}

static entry *entries_find(entries *list, const char *name) {
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i].name, name) == 0) return &list->items[i];
    return NULL;
}

static void entries_add(entries *list, const char *name, node *n) {
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 8;
        list->items = checked(realloc(list->items, list->capacity * sizeof(entry)));
    }
    list->items[list->count++] = (entry){checked(strdup(name)), n};
    n->references++;
}

static void entries_remove(entries *list, entry *e) {
    node *n = e->node;
    free(e->name);
    *e = list->items[--list->count];
    node_release(n);
}

// MARK: - paths

static bool is_control(const char *path) { return path && strcmp(path, CONTROL) == 0; }

/// Whether an operation is on the control file (by its handle: with nullpath_ok, handle operations get no path).
static bool on_control(const char *path, struct fuse_file_info *fi) {
    return fi ? fi->fh == CONTROL_HANDLE : is_control(path);
}

/// The node at `path`, or NULL (errno-style code in *error).
static node *lookup(const char *path, int *error) {
    node *n = fs.root;
    char copy[PATH_MAX];
    if (strlen(path) >= sizeof copy) {
        *error = -ENAMETOOLONG;
        return NULL;
    }
    strcpy(copy, path);
    char *save = NULL;
    for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (!n->directory) {
            *error = -ENOTDIR;
            return NULL;
        }
        entry *e = entries_find(&n->names, part);
        if (!e) {
            *error = -ENOENT;
            return NULL;
        }
        n = e->node;
    }
    return n;
}

/// The folder holding `path` and the last component's name.
static node *lookup_parent(const char *path, const char **name, int *error) {
    char copy[PATH_MAX];
    if (strlen(path) >= sizeof copy) {
        *error = -ENAMETOOLONG;
        return NULL;
    }
    strcpy(copy, path);
    char *slash = strrchr(copy, '/');
    *name = path + (slash - copy) + 1;
    if (**name == 0 || strlen(*name) > 255) {
        *error = **name ? -ENAMETOOLONG : -EINVAL;
        return NULL;
    }
    *slash = 0;
    node *parent = lookup(copy[0] ? copy : "/", error);
    if (parent && !parent->directory) {
        *error = -ENOTDIR;
        return NULL;
    }
    return parent;
}

/// The node behind an open handle, or the one at `path`.
static node *handle_node(const char *path, struct fuse_file_info *fi, int *error) {
    if (fi && fi->fh && fi->fh != CONTROL_HANDLE) return (node *)(uintptr_t)(fi->fh & ~(uint64_t)1);
    if (!path) {
        *error = -EBADF;
        return NULL;
    }
    return lookup(path, error);
}

static bool handle_is_sync(struct fuse_file_info *fi) { return fi && (fi->fh & 1); }

// MARK: - durability

static void pending_append(node *n, int kind, off_t offset, const char *bytes, size_t length) {
    if (n->pending_count == n->pending_capacity) {
        n->pending_capacity = n->pending_capacity ? n->pending_capacity * 2 : 16;
        n->pending = checked(realloc(n->pending, n->pending_capacity * sizeof(pending_op)));
    }
    pending_op op = {kind, offset, length, NULL};
    if (kind == OP_WRITE) {
        op.bytes = checked(malloc(length ? length : 1));
        memcpy(op.bytes, bytes, length);
    }
    n->pending[n->pending_count++] = op;
}

static void apply(buffer *b, const pending_op *op) {
    if (op->kind == OP_WRITE)
        buffer_write(b, op->offset, op->bytes, op->length);
    else
        buffer_resize(b, (size_t)op->offset);
}

/// fsync of a file: its data and size become durable.
static void sync_file(node *n) {
    for (size_t i = 0; i < n->pending_count; i++) apply(&n->durable, &n->pending[i]);
    pending_clear(n);
}

/// fsync of a folder: the names in it become durable, each naming the file as it now is.
static void sync_directory(node *n) {
    entries previous = n->durable_names;
    n->durable_names = (entries){0};
    for (size_t i = 0; i < n->names.count; i++) entries_add(&n->durable_names, n->names.items[i].name, n->names.items[i].node);
    entries_clear(&previous);
    free(previous.items);
}

/// What a disk keeps of a file's unsynced writes at a cut: a random prefix, the next one maybe torn at a sector.
static void cut_file(node *n) {
    size_t keep = n->pending_count && fs.prefix ? (size_t)(rand_r(&fs.seed) % (n->pending_count + 1)) : 0;
    for (size_t i = 0; i < n->pending_count; i++) {
        pending_op *op = &n->pending[i];
        if (i < keep) {
            apply(&n->durable, op);
            fs.kept_writes++;
            continue;
        }
        if (op->kind != OP_WRITE) continue;
        size_t dropped = op->length;
        if (i == keep && fs.prefix && fs.torn && rand_r(&fs.seed) % 2 == 0) {
            // The sectors the write touches, at absolute 512-byte boundaries; keep some of the first ones.
            off_t first = op->offset / SECTOR, last = (op->offset + (off_t)op->length - 1) / SECTOR;
            if (last > first) {
                off_t kept_sectors = 1 + rand_r(&fs.seed) % (last - first);
                size_t kept = (size_t)((first + kept_sectors) * SECTOR - op->offset);
                buffer_write(&n->durable, op->offset, op->bytes, kept);
                dropped -= kept;
                fs.torn_writes++;
            }
        }
        fs.dropped_bytes += dropped;
    }
    pending_clear(n);
}

/// Turns the tree into what survives the cut: every folder's durable names, every file's durable data.
static void cut_tree(node *directory) {
    for (size_t i = 0; i < directory->names.count; i++) {
        entry *e = &directory->names.items[i];
        if (entries_find(&directory->durable_names, e->name)) continue;
        fs.lost_entries++;
        // Its name is gone; its unsynced writes are cut as any file's (counted once: cut_file empties the list).
        if (!e->node->directory) cut_file(e->node);
    }
    for (size_t i = 0; i < directory->durable_names.count; i++) {
        node *child = directory->durable_names.items[i].node;
        if (child->directory) cut_tree(child);
    }
    entries_clear(&directory->names);
    for (size_t i = 0; i < directory->durable_names.count; i++) {
        node *child = directory->durable_names.items[i].node;
        entries_add(&directory->names, directory->durable_names.items[i].name, child);
    }
}

static void cut_files(node *directory) {
    for (size_t i = 0; i < directory->names.count; i++) {
        node *child = directory->names.items[i].node;
        if (child->directory) {
            cut_files(child);
        } else {
            cut_file(child);
            buffer_copy(&child->current, &child->durable);
        }
    }
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    if (ftw->level == 0) return 0;
    return remove(path);
}

/// Writes the tree (its current names and data) to the backing folder, replacing what was there.
static int dump(node *directory, const char *path) {
    int failures = 0;
    for (size_t i = 0; i < directory->names.count; i++) {
        entry *e = &directory->names.items[i];
        char child[PATH_MAX];
        snprintf(child, sizeof child, "%s/%s", path, e->name);
        if (e->node->directory) {
            if (mkdir(child, e->node->mode & 07777) != 0 && errno != EEXIST) failures++;
            failures += dump(e->node, child);
        } else {
            int fd = open(child, O_WRONLY | O_CREAT | O_TRUNC, e->node->mode & 07777);
            if (fd < 0) {
                failures++;
                continue;
            }
            size_t done = 0;
            while (done < e->node->current.length) {
                ssize_t written = write(fd, e->node->current.bytes + done, e->node->current.length - done);
                if (written <= 0) {
                    failures++;
                    break;
                }
                done += (size_t)written;
            }
            // No fsync: the backing folder stands for the disk of the simulation, not for data this machine must
            // keep through its own power loss (and fsyncs here would slow every unmount on a busy machine).
            close(fd);
        }
        if (lchown(child, e->node->uid, e->node->gid) != 0) { /* best effort */
        }
    }
    return failures;
}

static void save_backing(void) {
    nftw(fs.backing, remove_entry, 32, FTW_DEPTH | FTW_PHYS);
    if (dump(fs.root, fs.backing) != 0) fprintf(stderr, "powercutfs: could not write all of %s\n", fs.backing);
}

static void power_cut(const char *why) {
    if (fs.cut) return;
    // First every folder keeps only its durable names; then the files still named keep only their durable data
    // (the others are gone with their writes).
    cut_tree(fs.root);
    cut_files(fs.root);
    fs.cut = true;
    fs.armed_syncs = 0;
    fs.armed_time = false;
    save_backing();
    fprintf(stderr,
            "powercutfs: power cut (%s): dropped_bytes=%lu torn_writes=%lu lost_entries=%lu kept_writes=%lu seed=%u\n",
            why, fs.dropped_bytes, fs.torn_writes, fs.lost_entries, fs.kept_writes, fs.seed);
}

/// Whether the disk is off (a timed cut falls due at the next operation).
static bool is_off(void) {
    if (fs.armed_time && !fs.cut) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > fs.armed_at.tv_sec || (now.tv_sec == fs.armed_at.tv_sec && now.tv_nsec >= fs.armed_at.tv_nsec))
            power_cut("timer");
    }
    return fs.cut;
}

#define LIVE_OR_EIO \
    if (is_off()) return -EIO

// MARK: - loading the backing folder

static void load(node *directory, const char *path) {
    DIR *dir = opendir(path);
    if (!dir) return;
    struct dirent *d;
    while ((d = readdir(dir))) {
        if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0) continue;
        char child[PATH_MAX];
        snprintf(child, sizeof child, "%s/%s", path, d->d_name);
        struct stat st;
        if (lstat(child, &st) != 0) continue;
        if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) continue;
        node *n = node_new(S_ISDIR(st.st_mode), st.st_mode);
        n->uid = st.st_uid;
        n->gid = st.st_gid;
        n->mtime = st.st_mtim;
        n->ctime = st.st_ctim;
        if (n->directory) {
            load(n, child);
        } else {
            buffer_resize(&n->durable, (size_t)st.st_size);
            int fd = open(child, O_RDONLY);
            size_t done = 0;
            while (fd >= 0 && done < (size_t)st.st_size) {
                ssize_t got = read(fd, n->durable.bytes + done, (size_t)st.st_size - done);
                if (got <= 0) break;
                done += (size_t)got;
            }
            if (fd >= 0) close(fd);
            buffer_copy(&n->current, &n->durable);
        }
        entries_add(&directory->names, d->d_name, n);
        entries_add(&directory->durable_names, d->d_name, n);
    }
    closedir(dir);
}

// MARK: - operations

static void fill_stat(node *n, struct stat *st) {
    memset(st, 0, sizeof *st);
    st->st_ino = n->ino;
    st->st_mode = n->mode;
    st->st_nlink = n->directory ? 2 : 1;
    st->st_uid = n->uid;
    st->st_gid = n->gid;
    st->st_size = n->directory ? 4096 : (off_t)n->current.length;
    st->st_blksize = 4096;
    st->st_blocks = (st->st_size + 511) / 512;
    st->st_mtim = n->mtime;
    st->st_ctim = n->ctime;
    st->st_atim = n->mtime;
}

static void touch(node *n) {
    clock_gettime(CLOCK_REALTIME, &n->mtime);
    n->ctime = n->mtime;
}

static int pc_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
    if (on_control(path, fi)) {
        memset(st, 0, sizeof *st);
        st->st_mode = S_IFREG | 0600;
        st->st_nlink = 1;
        st->st_ino = 1u << 30;
        return 0;
    }
    LIVE_OR_EIO;
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    fill_stat(n, st);
    return 0;
}

static int pc_readdir(const char *path, void *out, fuse_fill_dir_t fill, off_t offset, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
    (void)offset;
    (void)flags;
    LIVE_OR_EIO;
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    if (!n->directory) return -ENOTDIR;
    fill(out, ".", NULL, 0, 0);
    fill(out, "..", NULL, 0, 0);
    for (size_t i = 0; i < n->names.count; i++) {
        struct stat st;
        fill_stat(n->names.items[i].node, &st);
        if (fill(out, n->names.items[i].name, &st, 0, 0)) break;
    }
    return 0;
}

static int pc_opendir(const char *path, struct fuse_file_info *fi) {
    LIVE_OR_EIO;
    int error = 0;
    node *n = lookup(path, &error);
    if (!n) return error;
    if (!n->directory) return -ENOTDIR;
    n->references++;
    fi->fh = (uint64_t)(uintptr_t)n;
    return 0;
}

static int pc_releasedir(const char *path, struct fuse_file_info *fi) {
    (void)path;
    node_release((node *)(uintptr_t)fi->fh);
    return 0;
}

static int pc_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
    (void)datasync;
    LIVE_OR_EIO;
    if (fs.armed_syncs > 0 && --fs.armed_syncs == 0) {
        power_cut("armed fsync of a folder");
        return -EIO;
    }
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    fs.syncs++;
    sync_directory(n);
    return 0;
}

static int pc_mkdir(const char *path, mode_t mode) {
    LIVE_OR_EIO;
    int error = 0;
    const char *name;
    node *parent = lookup_parent(path, &name, &error);
    if (!parent) return error;
    if (entries_find(&parent->names, name)) return -EEXIST;
    node *n = node_new(true, mode);
    entries_add(&parent->names, name, n);
    touch(parent);
    return 0;
}

static int remove_name(const char *path, bool directory) {
    LIVE_OR_EIO;
    int error = 0;
    const char *name;
    node *parent = lookup_parent(path, &name, &error);
    if (!parent) return error;
    entry *e = entries_find(&parent->names, name);
    if (!e) return -ENOENT;
    if (directory && !e->node->directory) return -ENOTDIR;
    if (!directory && e->node->directory) return -EISDIR;
    if (directory && e->node->names.count) return -ENOTEMPTY;
    entries_remove(&parent->names, e);
    touch(parent);
    return 0;
}

static int pc_unlink(const char *path) { return remove_name(path, false); }
static int pc_rmdir(const char *path) { return remove_name(path, true); }

static int pc_rename(const char *from, const char *to, unsigned int flags) {
    LIVE_OR_EIO;
    if (flags & ~(unsigned)RENAME_NOREPLACE) return -EINVAL;
    int error = 0;
    const char *from_name, *to_name;
    node *from_parent = lookup_parent(from, &from_name, &error);
    if (!from_parent) return error;
    node *to_parent = lookup_parent(to, &to_name, &error);
    if (!to_parent) return error;
    entry *source = entries_find(&from_parent->names, from_name);
    if (!source) return -ENOENT;
    node *n = source->node;
    entry *target = entries_find(&to_parent->names, to_name);
    if (target && target->node == n) return 0;
    if (target) {
        if (flags & RENAME_NOREPLACE) return -EEXIST;
        if (target->node->directory && !n->directory) return -EISDIR;
        if (!target->node->directory && n->directory) return -ENOTDIR;
        if (target->node->directory && target->node->names.count) return -ENOTEMPTY;
    }
    n->references++;  // keep it while its old name goes
    entries_remove(&from_parent->names, source);
    target = entries_find(&to_parent->names, to_name);
    if (target) entries_remove(&to_parent->names, target);
    entries_add(&to_parent->names, to_name, n);
    node_release(n);
    touch(from_parent);
    touch(to_parent);
    return 0;
}

static int pc_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
    LIVE_OR_EIO;
    if (is_control(path)) return -EEXIST;
    int error = 0;
    const char *name;
    node *parent = lookup_parent(path, &name, &error);
    if (!parent) return error;
    entry *existing = entries_find(&parent->names, name);
    node *n;
    if (existing) {
        if (fi->flags & O_EXCL) return -EEXIST;
        n = existing->node;
    } else {
        n = node_new(false, mode);
        entries_add(&parent->names, name, n);
        touch(parent);
    }
    n->references++;
    fi->fh = (uint64_t)(uintptr_t)n | ((fi->flags & O_DSYNC) ? 1 : 0);
    return 0;
}

static int pc_open(const char *path, struct fuse_file_info *fi) {
    if (is_control(path)) {
        fi->direct_io = 1;
        fi->fh = CONTROL_HANDLE;
        return 0;
    }
    LIVE_OR_EIO;
    int error = 0;
    node *n = lookup(path, &error);
    if (!n) return error;
    if (n->directory) return -EISDIR;
    n->references++;
    fi->fh = (uint64_t)(uintptr_t)n | ((fi->flags & O_DSYNC) ? 1 : 0);
    fi->keep_cache = 1;
    if (fi->flags & O_TRUNC) {
        buffer_resize(&n->current, 0);
        pending_append(n, OP_TRUNCATE, 0, NULL, 0);
        touch(n);
    }
    return 0;
}

static int pc_release(const char *path, struct fuse_file_info *fi) {
    (void)path;
    if (fi->fh != CONTROL_HANDLE) node_release((node *)(uintptr_t)(fi->fh & ~(uint64_t)1));
    return 0;
}

static int control_read(char *out, size_t size, off_t offset) {
    char text[512];
    int length = snprintf(text, sizeof text,
                          "state=%s syncs=%lu dropped_bytes=%lu torn_writes=%lu lost_entries=%lu kept_writes=%lu "
                          "seed=%u\n",
                          fs.cut ? "cut" : "live", fs.syncs, fs.dropped_bytes, fs.torn_writes, fs.lost_entries,
                          fs.kept_writes, fs.seed);
    if (offset >= length) return 0;
    size_t count = (size_t)(length - offset) < size ? (size_t)(length - offset) : size;
    memcpy(out, text + offset, count);
    return (int)count;
}

static int control_write(const char *bytes, size_t size) {
    char command[256];
    size_t length = size < sizeof command - 1 ? size : sizeof command - 1;
    memcpy(command, bytes, length);
    command[length] = 0;
    long number = 0;
    unsigned seed;
    if (sscanf(command, "seed %u", &seed) == 1) {
        fs.seed = seed;
    } else if (strncmp(command, "torn ", 5) == 0) {
        fs.torn = command[5] == '1';
    } else if (strncmp(command, "prefix ", 7) == 0) {
        fs.prefix = command[7] == '1';
    } else if (strncmp(command, "cut", 3) == 0) {
        power_cut("command");
    } else if (sscanf(command, "arm-syncs %ld", &number) == 1 && number > 0) {
        fs.armed_syncs = number;
    } else if (sscanf(command, "arm-ms %ld", &number) == 1 && number >= 0) {
        clock_gettime(CLOCK_MONOTONIC, &fs.armed_at);
        fs.armed_at.tv_sec += number / 1000;
        fs.armed_at.tv_nsec += (number % 1000) * 1000000L;
        if (fs.armed_at.tv_nsec >= 1000000000L) {
            fs.armed_at.tv_sec++;
            fs.armed_at.tv_nsec -= 1000000000L;
        }
        fs.armed_time = true;
    } else {
        return -EINVAL;
    }
    return (int)size;
}

static int pc_read(const char *path, char *out, size_t size, off_t offset, struct fuse_file_info *fi) {
    if (on_control(path, fi)) return control_read(out, size, offset);
    LIVE_OR_EIO;
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    if ((size_t)offset >= n->current.length) return 0;
    size_t count = n->current.length - (size_t)offset;
    if (count > size) count = size;
    memcpy(out, n->current.bytes + offset, count);
    return (int)count;
}

static int pc_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
    (void)datasync;
    if (on_control(path, fi)) return 0;
    LIVE_OR_EIO;
    if (fs.armed_syncs > 0 && --fs.armed_syncs == 0) {
        power_cut("armed fsync of a file");
        return -EIO;
    }
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    fs.syncs++;
    sync_file(n);
    return 0;
}

static int pc_write(const char *path, const char *bytes, size_t size, off_t offset, struct fuse_file_info *fi) {
    if (on_control(path, fi)) return control_write(bytes, size);
    LIVE_OR_EIO;
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    buffer_write(&n->current, offset, bytes, size);
    pending_append(n, OP_WRITE, offset, bytes, size);
    if (handle_is_sync(fi)) {
        fs.syncs++;
        sync_file(n);
    }
    touch(n);
    return (int)size;
}

static int pc_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
    if (on_control(path, fi)) return 0;
    LIVE_OR_EIO;
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    if (n->directory) return -EISDIR;
    buffer_resize(&n->current, (size_t)size);
    pending_append(n, OP_TRUNCATE, size, NULL, 0);
    if (handle_is_sync(fi)) sync_file(n);
    touch(n);
    return 0;
}

static int pc_fallocate(const char *path, int mode, off_t offset, off_t length, struct fuse_file_info *fi) {
    LIVE_OR_EIO;
    if (mode != 0) return -EOPNOTSUPP;
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    size_t end = (size_t)(offset + length);
    if (end > n->current.length) {
        buffer_resize(&n->current, end);
        pending_append(n, OP_TRUNCATE, (off_t)end, NULL, 0);
    }
    return 0;
}

static int pc_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
    LIVE_OR_EIO;
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    n->mode = (n->mode & S_IFMT) | (mode & 07777);
    clock_gettime(CLOCK_REALTIME, &n->ctime);
    return 0;
}

static int pc_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
    LIVE_OR_EIO;
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    if (uid != (uid_t)-1) n->uid = uid;
    if (gid != (gid_t)-1) n->gid = gid;
    clock_gettime(CLOCK_REALTIME, &n->ctime);
    return 0;
}

static int pc_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
    LIVE_OR_EIO;
    int error = 0;
    node *n = handle_node(path, fi, &error);
    if (!n) return error;
    if (!tv || tv[1].tv_nsec == UTIME_NOW)
        clock_gettime(CLOCK_REALTIME, &n->mtime);
    else if (tv[1].tv_nsec != UTIME_OMIT)
        n->mtime = tv[1];
    return 0;
}

static int pc_statfs(const char *path, struct statvfs *st) {
    (void)path;
    memset(st, 0, sizeof *st);
    st->f_bsize = st->f_frsize = 4096;
    st->f_blocks = st->f_bfree = st->f_bavail = 1u << 24;
    st->f_files = st->f_ffree = 1u << 20;
    st->f_namemax = 255;
    return 0;
}

static int pc_flush(const char *path, struct fuse_file_info *fi) {
    (void)path;
    (void)fi;
    return 0;
}

static void *pc_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
    // Every write must reach this process before write(2) returns, or a cut could not drop it.
    conn->want &= ~(unsigned)FUSE_CAP_WRITEBACK_CACHE;
    // Only this process changes the files, so the kernel's cached pages stay right (and -shm's mapping is kept).
    conn->want &= ~(unsigned)FUSE_CAP_AUTO_INVAL_DATA;
    cfg->use_ino = 1;
    cfg->hard_remove = 1;
    cfg->nullpath_ok = 1;
    cfg->entry_timeout = 0;
    cfg->attr_timeout = 0;
    cfg->negative_timeout = 0;
    cfg->kernel_cache = 1;
    return NULL;
}

static void pc_destroy(void *data) {
    (void)data;
    // Unmounted, or told to stop with SIGTERM (the harness does when another mount namespace still holds a copy
    // of this mount, so the unmount never reaches this process). libfuse has taken its signal handlers away by
    // now: a second SIGTERM must not cut the save short.
    signal(SIGTERM, SIG_IGN);
    // A clean unmount is a sync; after a cut the backing folder already holds what survived.
    if (!fs.cut) save_backing();
}

static const struct fuse_operations operations = {
    .init = pc_init,
    .destroy = pc_destroy,
    .getattr = pc_getattr,
    .readdir = pc_readdir,
    .opendir = pc_opendir,
    .releasedir = pc_releasedir,
    .fsyncdir = pc_fsyncdir,
    .mkdir = pc_mkdir,
    .unlink = pc_unlink,
    .rmdir = pc_rmdir,
    .rename = pc_rename,
    .create = pc_create,
    .open = pc_open,
    .release = pc_release,
    .read = pc_read,
    .write = pc_write,
    .fsync = pc_fsync,
    .truncate = pc_truncate,
    .fallocate = pc_fallocate,
    .chmod = pc_chmod,
    .chown = pc_chown,
    .utimens = pc_utimens,
    .statfs = pc_statfs,
    .flush = pc_flush,
};

int main(int argc, char *argv[]) {
    if (argc < 3 || argv[1][0] == '-') {
        fprintf(stderr, "usage: powercutfs BACKING MOUNTPOINT [FUSE options]\n");
        return 2;
    }
    static char backing[PATH_MAX];
    if (!realpath(argv[1], backing)) {
        perror(argv[1]);
        return 2;
    }
    fs.backing = backing;
    fs.seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    const char *seed = getenv("POWERCUTFS_SEED");
    if (seed) fs.seed = (unsigned)strtoul(seed, NULL, 10);
    const char *torn = getenv("POWERCUTFS_TORN");
    if (torn) fs.torn = strcmp(torn, "0") != 0;
    const char *prefix = getenv("POWERCUTFS_PREFIX");
    if (prefix) fs.prefix = strcmp(prefix, "0") != 0;
    fs.root = node_new(true, 0755);
    fs.root->ino = 1;
    fs.root->references = 1;
    load(fs.root, backing);
    // The harness's SIGTERM must be heard. Foundation's Process starts this with the spawning thread's signal
    // mask, which blocks nearly every signal (SIGTERM stayed pending); and libfuse only takes over the
    // termination signals that are at their default.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    // The model is one tree without locks: serve one request at a time (-s).
    char *arguments[argc + 2];
    arguments[0] = argv[0];
    arguments[1] = "-s";
    for (int i = 2; i < argc; i++) arguments[i] = argv[i];
    arguments[argc] = NULL;
    return fuse_main(argc, arguments, &operations, NULL);
}
