/* File-system callbacks (skelanim/io/file.h) and their default
 * implementation. On POSIX systems a file is opened with O_NONBLOCK and
 * checked with fstat before anything is read: opening a FIFO for reading
 * would otherwise block until a writer appears, and a directory "opens" but
 * fails on read with a message that does not say why. Elsewhere plain C stdio
 * is used. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#endif
#include "core/internal.h"
#include "skelanim/io/file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#if defined(__unix__) || defined(__unix) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define SK_FILE_POSIX 1
#endif
#include "io/file_internal.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* The system's text for an errno value, without the shared buffer strerror
 * may use (POSIX strerror_r where there is one). */
static const char *errno_text(int e, char *buf, size_t cap) {
#if defined(SK_FILE_POSIX)
    if (strerror_r(e, buf, cap) == 0) return buf;
    snprintf(buf, cap, "error %d", e);
    return buf;
#else
    (void)buf;
    (void)cap;
    return strerror(e);
#endif
}

static sk_result too_large(sk_error *err, const char *path, uint64_t size, uint64_t max) {
    return sk_error_set(err, SK_ERR_LIMIT, "%s: %llu bytes exceed the limit of %llu", path, (unsigned long long)size,
                        (unsigned long long)max);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SK_FILE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SK_FILE_ASAN 1
#endif
/* (not under AddressSanitizer, which sees a read past a heap buffer but not
 * past these pages) */
#if defined(SK_FILE_POSIX) && defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE) && !defined(SK_FILE_ASAN)
#define SK_FILE_SCRATCH 1
/* A file read for the length of a load only (sk_file_read_scratch): at least
 * this large, its bytes go into pages of their own (2 MiB aligned, huge
 * pages advised), released when the load ends. Smaller files go to the
 * allocator: the kernel zeroes a whole 2 MiB page before the read fills it,
 * which costs more than the copy below 1 MiB. */
#define SK_SCRATCH_MIN ((size_t)1 << 20)
#define SK_SCRATCH_ALIGN ((size_t)2 << 20)
#endif

void *sk_file_pages(size_t n, sk_file_scratch *map) {
    map->base = NULL;
    map->length = 0;
#if defined(SK_FILE_SCRATCH)
    if (n == 0 || n > SIZE_MAX - 4096) return NULL;
    size_t len = (n + 4095) & ~(size_t)4095;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    map->base = m;
    map->length = len;
    return m;
#else
    (void)n;
    return NULL;
#endif
}

void sk_file_pages_free(sk_file_scratch *map) {
#if defined(SK_FILE_SCRATCH)
    if (map->base) munmap(map->base, map->length);
#endif
    map->base = NULL;
    map->length = 0;
}

/* Releases what read_posix returned: its own pages, or the allocator's. */
static void scratch_free(const sk_allocator *alloc, void *buf, size_t n, sk_file_scratch *map) {
#if defined(SK_FILE_SCRATCH)
    if (map && map->base) {
        munmap(map->base, map->length);
        map->base = NULL;
        map->length = 0;
        return;
    }
#endif
    (void)map;
    sk_free(alloc, buf, n ? n : 1);
}

#if defined(SK_FILE_POSIX)
/* Opens a regular file for reading (never waiting on a FIFO) no larger than
 * max_size: its descriptor and size. */
static sk_result open_regular(const char *path, uint64_t max_size, int *fd_out, struct stat *st, sk_error *err) {
    int fd;
    do fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    char eb[128];
    if (fd < 0) return sk_error_set(err, SK_ERR_IO, "%s: cannot open: %s", path, errno_text(errno, eb, sizeof eb));
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return sk_error_set(err, SK_ERR_IO, "%s: cannot stat: %s", path, errno_text(e, eb, sizeof eb));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return sk_error_set(err, SK_ERR_IO, "%s: %s, not a regular file", path,
                            S_ISDIR(st->st_mode)    ? "is a directory"
                            : S_ISFIFO(st->st_mode) ? "is a FIFO"
                            : S_ISSOCK(st->st_mode) ? "is a socket"
                                                    : "is a device");
    }
    if (st->st_size < 0 || (uint64_t)st->st_size > max_size || (uint64_t)st->st_size > SIZE_MAX - 1) {
        close(fd);
        return too_large(err, path, (uint64_t)st->st_size, max_size);
    }
    *fd_out = fd;
    return SK_OK;
}

sk_result sk_file_open_read(const sk_file_io *io, const char *path, uint64_t max_size, sk_file_handle *h,
                            sk_error *err) {
    h->fd = -1;
    h->size = 0;
    if (io && io->read) return SK_ERR_UNSUPPORTED;
    struct stat st;
    sk_result r = open_regular(path, max_size, &h->fd, &st, err);
    if (r != SK_OK) return r;
    h->size = (uint64_t)st.st_size;
    return SK_OK;
}

bool sk_file_pread(const sk_file_handle *h, void *dst, size_t n, uint64_t at) {
    uint8_t *d = dst;
    if (at > h->size || n > h->size - at) return false;
    while (n) {
        ssize_t r = pread(h->fd, d, n, (off_t)at);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false; /* an error, or the file shrank */
        d += r, n -= (size_t)r, at += (uint64_t)r;
    }
    return true;
}

void sk_file_close(sk_file_handle *h) {
    if (h->fd >= 0) close(h->fd);
    h->fd = -1;
}
#else
sk_result sk_file_open_read(const sk_file_io *io, const char *path, uint64_t max_size, sk_file_handle *h,
                            sk_error *err) {
    (void)io, (void)path, (void)max_size, (void)err;
    h->fd = -1;
    h->size = 0;
    return SK_ERR_UNSUPPORTED;
}
bool sk_file_pread(const sk_file_handle *h, void *dst, size_t n, uint64_t at) {
    (void)h, (void)dst, (void)n, (void)at;
    return false;
}
void sk_file_close(sk_file_handle *h) { h->fd = -1; }
sk_result sk_file_read_handle(const sk_file_handle *h, const char *path, const sk_allocator *alloc, void **data,
                              size_t *size, sk_file_scratch *scratch, sk_error *err) {
    (void)h, (void)path, (void)alloc, (void)data, (void)size, (void)scratch;
    return sk_error_set(err, SK_ERR_UNSUPPORTED, "no file handles here");
}
#endif

#if defined(SK_FILE_POSIX)
/* map: the caller's sk_file_scratch when the file may go into pages of its
 * own (SK_FILE_SCRATCH), else NULL. */
/* The n bytes of the open file fd (left open), from where it stands. */
static sk_result read_fd(int fd, size_t n, const char *path, const sk_allocator *alloc, void **data, size_t *size,
                         sk_file_scratch *map, sk_error *err) {
    char eb[128];
    size_t got = 0;
    uint8_t *buf = NULL;
#if defined(SK_FILE_SCRATCH)
    /* A large file read for one load: pages of its own rather than the
     * allocator's (which would hand out fresh memory for it, and take it
     * back, on every load), 2 MiB aligned with huge pages advised, so that
     * the kernel can back it with a few large pages instead of one 4 KiB
     * page per fault. Nothing the library keeps is in it. */
    if (map && n >= SK_SCRATCH_MIN && n <= SIZE_MAX - 2 * SK_SCRATCH_ALIGN) {
        size_t len = ((n + SK_SCRATCH_ALIGN - 1) & ~(SK_SCRATCH_ALIGN - 1)) + SK_SCRATCH_ALIGN;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            map->base = m;
            map->length = len;
            buf = (uint8_t *)(((uintptr_t)m + SK_SCRATCH_ALIGN - 1) & ~(uintptr_t)(SK_SCRATCH_ALIGN - 1));
            (void)madvise(buf, (len - (size_t)(buf - (uint8_t *)m)) & ~(SK_SCRATCH_ALIGN - 1), MADV_HUGEPAGE);
        }
    }
#endif
    if (!buf) buf = sk_realloc_raw(alloc, NULL, 0, n ? n : 1); /* every byte is read into */
    if (!buf) {
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path, n);
    }
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            scratch_free(alloc, buf, n, map);
            return sk_error_set(err, SK_ERR_IO, "%s: read error: %s", path, errno_text(e, eb, sizeof eb));
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    if (got != n) {
        scratch_free(alloc, buf, n, map);
        return sk_error_set(err, SK_ERR_IO, "%s: the file shrank while being read (%zu of %zu bytes)", path, got, n);
    }
    *data = buf;
    *size = n;
    return SK_OK;
}
static sk_result read_posix(const char *path, uint64_t max_size, const sk_allocator *alloc, void **data,
                            size_t *size, sk_file_scratch *map, sk_error *err) {
    int fd;
    struct stat st;
    sk_result r = open_regular(path, max_size, &fd, &st, err);
    if (r != SK_OK) return r;
    r = read_fd(fd, (size_t)st.st_size, path, alloc, data, size, map, err);
    close(fd);
    return r;
}

sk_result sk_file_read_handle(const sk_file_handle *h, const char *path, const sk_allocator *alloc, void **data,
                              size_t *size, sk_file_scratch *scratch, sk_error *err) {
    scratch->base = NULL;
    scratch->length = 0;
    *data = NULL;
    *size = 0;
    alloc = sk_allocator_or_default(alloc);
    bool own_pages = alloc == sk_allocator_or_default(NULL); /* (as sk_file_read_scratch) */
    return read_fd(h->fd, (size_t)h->size, path, alloc, data, size, own_pages ? scratch : NULL, err);
}
#else
static sk_result read_stdio(const char *path, uint64_t max_size, const sk_allocator *alloc, void **data,
                            size_t *size, sk_error *err) {
    char eb[128];
    FILE *f = fopen(path, "rb");
    if (!f) return sk_error_set(err, SK_ERR_IO, "%s: cannot open: %s", path, errno_text(errno, eb, sizeof eb));
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return sk_error_set(err, SK_ERR_IO, "%s: cannot determine the size (not a regular file?)", path);
    }
    if ((uint64_t)len > max_size || (uint64_t)len > SIZE_MAX - 1) {
        fclose(f);
        return too_large(err, path, (uint64_t)len, max_size);
    }
    size_t n = (size_t)len;
    uint8_t *buf = sk_realloc_raw(alloc, NULL, 0, n ? n : 1);
    if (!buf) {
        fclose(f);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path, n);
    }
    size_t got = n ? fread(buf, 1, n, f) : 0;
    fclose(f);
    if (got != n) {
        sk_free(alloc, buf, n ? n : 1);
        return sk_error_set(err, SK_ERR_IO, "%s: read error (%zu of %zu bytes)", path, got, n);
    }
    *data = buf;
    *size = n;
    return SK_OK;
}
#endif

sk_result sk_file_read_default(void *user, const char *path, uint64_t max_size, const sk_allocator *alloc,
                               void **data, size_t *size, sk_error *err) {
    (void)user;
    if (!path || !data || !size) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_file_read: NULL argument");
    *data = NULL;
    *size = 0;
#if defined(SK_FILE_POSIX)
    return read_posix(path, max_size, alloc, data, size, NULL, err);
#else
    return read_stdio(path, max_size, alloc, data, size, err);
#endif
}

void sk_file_release_default(void *user, const sk_allocator *alloc, void *data, size_t size) {
    (void)user;
    sk_free(alloc, data, size ? size : 1);
}

sk_result sk_file_write_default(void *user, const char *path, const void *data, size_t size, sk_error *err) {
    (void)user;
    if (!path || (!data && size)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_file_write: NULL argument");
    char eb[128];
    FILE *f = fopen(path, "wb");
    if (!f)
        return sk_error_set(err, SK_ERR_IO, "%s: cannot open for writing: %s", path, errno_text(errno, eb, sizeof eb));
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    int write_errno = n != size ? errno : 0;
    int close_err = fclose(f);
    if (n != size || close_err != 0)
        return sk_error_set(err, SK_ERR_IO, "%s: write failed: %s", path,
                            errno_text(n != size ? write_errno : errno, eb, sizeof eb));
    return SK_OK;
}

sk_result sk_file_read(const sk_file_io *io, const char *path, uint64_t max_size, const sk_allocator *alloc,
                       void **data, size_t *size, sk_error *err) {
    if (!data || !size) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_file_read: NULL argument");
    *data = NULL;
    *size = 0;
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_file_read: path is NULL");
    alloc = sk_allocator_or_default(alloc);
    if (!io || !io->read) return sk_file_read_default(NULL, path, max_size, alloc, data, size, err);
    sk_result r = io->read(io->user, path, max_size, alloc, data, size, err);
    if (r == SK_OK && !*data && *size)
        return sk_error_set(err, SK_ERR_IO, "%s: the read callback returned %zu bytes without data", path, *size);
    if (r == SK_OK && *size > max_size) { /* the callback did not honour the limit */
        size_t got = *size;
        sk_file_release(io, alloc, *data, got);
        *data = NULL;
        *size = 0;
        return too_large(err, path, (uint64_t)got, max_size);
    }
    if (r != SK_OK) {
        *data = NULL;
        *size = 0;
    }
    return r;
}

void sk_file_release(const sk_file_io *io, const sk_allocator *alloc, void *data, size_t size) {
    if (!data) return;
    alloc = sk_allocator_or_default(alloc);
    if (!io || !io->read) sk_file_release_default(NULL, alloc, data, size);
    else if (io->release) io->release(io->user, alloc, data, size);
    else sk_free(alloc, data, size);
}

sk_result sk_file_write(const sk_file_io *io, const char *path, const void *data, size_t size, sk_error *err) {
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_file_write: path is NULL");
    if (!io || !io->write) return sk_file_write_default(NULL, path, data, size, err);
    return io->write(io->user, path, data, size, err);
}

sk_result sk_file_read_scratch(const sk_file_io *io, const char *path, uint64_t max_size, const sk_allocator *alloc,
                               void **data, size_t *size, sk_file_scratch *scratch, sk_error *err) {
    scratch->base = NULL;
    scratch->length = 0;
#if defined(SK_FILE_POSIX)
    /* only with the default file system and the default allocator: a
     * caller's allocator sees every byte the library takes */
    if ((!io || !io->read) && sk_allocator_or_default(alloc) == sk_allocator_or_default(NULL) && path && data && size) {
        *data = NULL;
        *size = 0;
        return read_posix(path, max_size, sk_allocator_or_default(alloc), data, size, scratch, err);
    }
#endif
    return sk_file_read(io, path, max_size, alloc, data, size, err);
}

void sk_file_release_scratch(const sk_file_io *io, const sk_allocator *alloc, void *data, size_t size,
                             sk_file_scratch *scratch) {
#if defined(SK_FILE_SCRATCH)
    if (scratch->base) {
        scratch_free(alloc, data, size, scratch);
        return;
    }
#endif
    (void)scratch;
    sk_file_release(io, alloc, data, size);
}
