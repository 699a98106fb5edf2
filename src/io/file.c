/* File-system callbacks (skelanim/io/file.h) and their default
 * implementation. On POSIX systems a file is opened with O_NONBLOCK and
 * checked with fstat before anything is read: opening a FIFO for reading
 * would otherwise block until a writer appears, and a directory "opens" but
 * fails on read with a message that does not say why. Elsewhere plain C stdio
 * is used. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "core/internal.h"
#include "skelanim/io/file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#if defined(__unix__) || defined(__unix) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#define SK_FILE_POSIX 1
#endif

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

#if defined(SK_FILE_POSIX)
static sk_result read_posix(const char *path, uint64_t max_size, const sk_allocator *alloc, void **data,
                            size_t *size, sk_error *err) {
    int fd;
    do fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    char eb[128];
    if (fd < 0) return sk_error_set(err, SK_ERR_IO, "%s: cannot open: %s", path, errno_text(errno, eb, sizeof eb));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return sk_error_set(err, SK_ERR_IO, "%s: cannot stat: %s", path, errno_text(e, eb, sizeof eb));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return sk_error_set(err, SK_ERR_IO, "%s: %s, not a regular file", path,
                            S_ISDIR(st.st_mode)    ? "is a directory"
                            : S_ISFIFO(st.st_mode) ? "is a FIFO"
                            : S_ISSOCK(st.st_mode) ? "is a socket"
                                                   : "is a device");
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > max_size || (uint64_t)st.st_size > SIZE_MAX - 1) {
        close(fd);
        return too_large(err, path, (uint64_t)st.st_size, max_size);
    }
    size_t n = (size_t)st.st_size, got = 0;
    uint8_t *buf = sk_realloc_raw(alloc, NULL, 0, n ? n : 1); /* every byte is read into */
    if (!buf) {
        close(fd);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path, n);
    }
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            sk_free(alloc, buf, n ? n : 1);
            return sk_error_set(err, SK_ERR_IO, "%s: read error: %s", path, errno_text(e, eb, sizeof eb));
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    close(fd);
    if (got != n) {
        sk_free(alloc, buf, n ? n : 1);
        return sk_error_set(err, SK_ERR_IO, "%s: the file shrank while being read (%zu of %zu bytes)", path, got, n);
    }
    *data = buf;
    *size = n;
    return SK_OK;
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
    return read_posix(path, max_size, alloc, data, size, err);
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
