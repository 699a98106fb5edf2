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

#endif
