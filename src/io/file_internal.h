/* Private to libskelanim_io: reading a file for the length of one load.
 * Not installed. */
#ifndef SKELANIM_IO_FILE_INTERNAL_H
#define SKELANIM_IO_FILE_INTERNAL_H

#include "skelanim/io/file.h"

/* With the default file system (io NULL or without a read callback) a large
 * file may be read into pages of its own instead of the allocator's memory:
 * base/length describe them (base NULL otherwise). Such a buffer must not
 * outlive the load that asked for it; release it with
 * sk_file_release_scratch. With a read callback this is sk_file_read. */
typedef struct sk_file_scratch {
    void *base;
    size_t length;
} sk_file_scratch;

sk_result sk_file_read_scratch(const sk_file_io *io, const char *path, uint64_t max_size, const sk_allocator *alloc,
                               void **data, size_t *size, sk_file_scratch *scratch, sk_error *err);
void sk_file_release_scratch(const sk_file_io *io, const sk_allocator *alloc, void *data, size_t size,
                             sk_file_scratch *scratch);

/* Memory for bytes needed during one load only, outside the allocator's
 * heap: pages of its own (POSIX, not under AddressSanitizer), of which only
 * those written are ever backed; NULL where there are none (then take the
 * allocator's). sk_file_pages_free releases them (map->base NULL: nothing). */
void *sk_file_pages(size_t n, sk_file_scratch *map);
void sk_file_pages_free(sk_file_scratch *map);

/* A file opened for reads at any offset (the glTF reader streams a .glb's
 * animation keys): only with the default file system on POSIX systems
 * (otherwise SK_ERR_UNSUPPORTED, nothing opened, err untouched); the same
 * checks and messages as the default read (a regular file, at most max_size
 * bytes). sk_file_pread reads n bytes at `at`, false on an error or when
 * the file is shorter now. */
typedef struct sk_file_handle {
    int fd;
    uint64_t size;
} sk_file_handle;

sk_result sk_file_open_read(const sk_file_io *io, const char *path, uint64_t max_size, sk_file_handle *h,
                            sk_error *err);
bool sk_file_pread(const sk_file_handle *h, void *dst, size_t n, uint64_t at);
void sk_file_close(sk_file_handle *h);
/* The whole file from the start, as sk_file_read_scratch reads it (scratch
 * pages with the default allocator); release with sk_file_release_scratch
 * (io NULL). The handle stays open. */
sk_result sk_file_read_handle(const sk_file_handle *h, const char *path, const sk_allocator *alloc, void **data,
                              size_t *size, sk_file_scratch *scratch, sk_error *err);

#endif
