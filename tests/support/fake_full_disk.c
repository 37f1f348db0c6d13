/* An LD_PRELOAD shim that makes one directory behave like a file system of a given size, so
 * the tests can fill a "disk" without root, a loop device or a tmpfs mount.
 *
 *   TESSERA_FAKE_DISK_DIR=/abs/dir  TESSERA_FAKE_DISK_BYTES=300000  LD_PRELOAD=libfake_full_disk.so cmd
 *
 * Every write to a file below the directory (write, pwrite, writev, pwritev and their 64-bit
 * names, as MPI-IO and HDF5 call them) that would make the files below it hold more than
 * TESSERA_FAKE_DISK_BYTES bytes fails with ENOSPC and writes nothing, as a full disk does.
 * Usage is the sum of the files' sizes, recomputed at each write, so ranks in separate
 * processes see one shared disk. Writes elsewhere are passed through untouched. */
#define _GNU_SOURCE
#include <dirent.h>
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
  return c ? atoll(c) : -1;
}

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
