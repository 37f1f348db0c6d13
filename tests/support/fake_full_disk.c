/* An LD_PRELOAD shim that makes one directory behave like a file system of a given size, so
 * the tests can fill a "disk" without root, a loop device or a tmpfs mount.
 *
 *   TESSERA_FAKE_DISK_DIR=/abs/dir  TESSERA_FAKE_DISK_BYTES=300000  LD_PRELOAD=libfake_full_disk.so cmd
 *
 * Every write to a file below the directory (write, pwrite, writev, pwritev and their 64-bit
 * names, as MPI-IO and HDF5 call them) that would make the files below it hold more than
 * TESSERA_FAKE_DISK_BYTES bytes fails with ENOSPC and writes nothing, as a full disk does.
 * Usage is the sum of the files' sizes, recomputed at each write, so ranks in separate
 * processes see one shared disk. Writes elsewhere are passed through untouched.
 *
 *   TESSERA_FAKE_DISK_RANK=0   the disk is full only for the MPI rank named (Open MPI's
 *                              OMPI_COMM_WORLD_RANK), as when one rank hits its quota or
 *                              `ulimit -f`: the other ranks' writes go through.
 *   TESSERA_FAKE_READONLY_DIR=/abs/dir   the directory (and all below it) is read-only, as a
 *                              read-only mount is even for root: opening a file there for
 *                              writing, creating one or a directory fails with EROFS. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static const char* disk_dir(void) {
  const char* d = getenv("TESSERA_FAKE_DISK_DIR");
  return d && *d ? d : NULL;
}

static long long capacity(void) {
  const char* c = getenv("TESSERA_FAKE_DISK_BYTES");
  if (!c) return -1;
  const char* only = getenv("TESSERA_FAKE_DISK_RANK");
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  if (only && *only && (!rank || strcmp(only, rank) != 0)) return -1; /* another rank: not full */
  return atoll(c);
}

/* 1 when `path` (absolute or relative to the working directory) is `dir` or below it. */
static int below(const char* dir, const char* path) {
  char abs[2 * PATH_MAX + 2];
  if (path[0] == '/') {
    snprintf(abs, sizeof abs, "%s", path);
  } else {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return 0;
    snprintf(abs, sizeof abs, "%s/%s", cwd, path);
  }
  const size_t dlen = strlen(dir);
  return strncmp(abs, dir, dlen) == 0 && (abs[dlen] == '/' || abs[dlen] == '\0');
}

/* -1 (EROFS) when `path` is below the read-only directory and the call would change it. */
static int read_only(const char* path, int writes) {
  const char* dir = getenv("TESSERA_FAKE_READONLY_DIR");
  if (!writes || !dir || !*dir || !path || !below(dir, path)) return 0;
  errno = EROFS;
  return -1;
}

static int open_writes(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0; }

/* The sum of the sizes of the regular files below `dir`. */
static long long usage(const char* dir) {
  long long total = 0;
  DIR* d = opendir(dir);
  if (!d) return 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) total += usage(path);
    else if (S_ISREG(st.st_mode)) total += (long long)st.st_size;
  }
  closedir(d);
  return total;
}

/* 0 when writing `len` bytes at `offset` (-1: the file position) of `fd` fits; -1 (ENOSPC) when not. */
static int check_room(int fd, long long offset, size_t len) {
  const char* dir = disk_dir();
  const long long cap = capacity();
  if (!dir || cap < 0 || len == 0) return 0;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  const size_t dlen = strlen(dir);
  if (strncmp(path, dir, dlen) != 0 || (path[dlen] != '/' && path[dlen] != '\0')) return 0;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  if (offset < 0) offset = (long long)lseek(fd, 0, SEEK_CUR);
  const long long end = offset + (long long)len;
  const long long grows = end > (long long)st.st_size ? end - (long long)st.st_size : 0;
  if (grows == 0 || usage(dir) + grows <= cap) return 0;
  errno = ENOSPC;
  return -1;
}

static size_t iov_bytes(const struct iovec* iov, int n) {
  size_t total = 0;
  for (int i = 0; i < n; ++i) total += iov[i].iov_len;
  return total;
}

#define REAL(name, ret, ...)                                   \
  static ret (*real)(__VA_ARGS__) = NULL;                      \
  if (!real) real = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, name)

ssize_t write(int fd, const void* buf, size_t len) {
  REAL("write", ssize_t, int, const void*, size_t);
  if (check_room(fd, -1, len)) return -1;
  return real(fd, buf, len);
}

ssize_t pwrite(int fd, const void* buf, size_t len, off_t off) {
  REAL("pwrite", ssize_t, int, const void*, size_t, off_t);
  if (check_room(fd, (long long)off, len)) return -1;
  return real(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void* buf, size_t len, off_t off) {
  REAL("pwrite64", ssize_t, int, const void*, size_t, off_t);
  if (check_room(fd, (long long)off, len)) return -1;
  return real(fd, buf, len, off);
}

ssize_t writev(int fd, const struct iovec* iov, int n) {
  REAL("writev", ssize_t, int, const struct iovec*, int);
  if (check_room(fd, -1, iov_bytes(iov, n))) return -1;
  return real(fd, iov, n);
}

ssize_t pwritev(int fd, const struct iovec* iov, int n, off_t off) {
  REAL("pwritev", ssize_t, int, const struct iovec*, int, off_t);
  if (check_room(fd, (long long)off, iov_bytes(iov, n))) return -1;
  return real(fd, iov, n, off);
}

ssize_t pwritev64(int fd, const struct iovec* iov, int n, off_t off) {
  REAL("pwritev64", ssize_t, int, const struct iovec*, int, off_t);
  if (check_room(fd, (long long)off, iov_bytes(iov, n))) return -1;
  return real(fd, iov, n, off);
}

/* The calls that create or open for writing, for TESSERA_FAKE_READONLY_DIR. */
#define OPEN_MODE(flags, mode)          \
  mode_t mode = 0;                      \
  if ((flags) & (O_CREAT | O_TMPFILE)) { \
    va_list ap;                         \
    va_start(ap, flags);                \
    mode = (mode_t)va_arg(ap, int);     \
    va_end(ap);                         \
  }

int open(const char* path, int flags, ...) {
  REAL("open", int, const char*, int, ...);
  OPEN_MODE(flags, mode);
  if (read_only(path, open_writes(flags))) return -1;
  return real(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  REAL("open64", int, const char*, int, ...);
  OPEN_MODE(flags, mode);
  if (read_only(path, open_writes(flags))) return -1;
  return real(path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  REAL("openat", int, int, const char*, int, ...);
  OPEN_MODE(flags, mode);
  if (dirfd == AT_FDCWD && read_only(path, open_writes(flags))) return -1;
  return real(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  REAL("openat64", int, int, const char*, int, ...);
  OPEN_MODE(flags, mode);
  if (dirfd == AT_FDCWD && read_only(path, open_writes(flags))) return -1;
  return real(dirfd, path, flags, mode);
}

int creat(const char* path, mode_t mode) {
  REAL("creat", int, const char*, mode_t);
  if (read_only(path, 1)) return -1;
  return real(path, mode);
}

int mkdir(const char* path, mode_t mode) {
  REAL("mkdir", int, const char*, mode_t);
  if (read_only(path, 1)) return -1;
  return real(path, mode);
}

FILE* fopen(const char* path, const char* how) {
  REAL("fopen", FILE*, const char*, const char*);
  if (read_only(path, strpbrk(how, "wa+") != NULL)) return NULL;
  return real(path, how);
}

FILE* fopen64(const char* path, const char* how) {
  REAL("fopen64", FILE*, const char*, const char*);
  if (read_only(path, strpbrk(how, "wa+") != NULL)) return NULL;
  return real(path, how);
}

int rename(const char* from, const char* to) {
  REAL("rename", int, const char*, const char*);
  if (read_only(from, 1) || read_only(to, 1)) return -1;
  return real(from, to);
}

int unlink(const char* path) {
  REAL("unlink", int, const char*);
  if (read_only(path, 1)) return -1;
  return real(path);
}
