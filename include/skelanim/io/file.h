/* skelanim — file-system callbacks for the readers and writers (part of
 * libskelanim_io), in the manner of cgltf's cgltf_file_options: the glTF
 * loader (the file itself, external buffers and images), the state-machine
 * loader and the .glb writer touch files only through an sk_file_io, so a
 * program can serve them from an archive, a virtual file system or memory.
 *
 * A zeroed struct (or a NULL pointer where one is taken) selects the default
 * implementation: C stdio, with POSIX open/fstat where available so that only
 * regular files are read (a FIFO, socket, device or directory is refused at
 * once with a message saying so, never waited on). read and write may be set
 * independently; a NULL member keeps the default for that operation. */
#ifndef SKELANIM_IO_FILE_H
#define SKELANIM_IO_FILE_H

#include "skelanim/core/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_file_io {
    /* Reads the whole file at path. The bytes go into memory from alloc
     * (sk_alloc/sk_realloc or alloc's own hooks); *data and *size receive it.
     * A file larger than max_size bytes must be refused with SK_ERR_LIMIT
     * before it is read. On failure return the code (SK_ERR_IO when the file
     * cannot be opened or read) and fill err (may be NULL) with a message that
     * starts with the path, e.g. "models/a.bin: cannot open: No such file or
     * directory". Paths are the ones the caller gave or, for a glTF file's
     * external resources, its folder + "/" + the percent-decoded relative URI
     * (never absolute, never with a ".." segment). */
    sk_result (*read)(void *user, const char *path, uint64_t max_size, const sk_allocator *alloc, void **data,
                      size_t *size, sk_error *err);
    /* Releases what a custom read returned (the default read always pairs
     * with the default release). NULL: sk_free(alloc, data, size). */
    void (*release)(void *user, const sk_allocator *alloc, void *data, size_t size);
    /* Creates or replaces the file at path with size bytes; err as for read. */
    sk_result (*write)(void *user, const char *path, const void *data, size_t size, sk_error *err);
    void *user;
} sk_file_io;

/* The default implementations (what NULL members select), for a custom
 * sk_file_io that wraps them. user is ignored. The default read allocates
 * max(size, 1) bytes; the default release frees them. */
SK_API sk_result sk_file_read_default(void *user, const char *path, uint64_t max_size, const sk_allocator *alloc,
                                      void **data, size_t *size, sk_error *err);
/* The default release: sk_free(alloc, data, size). */
SK_API void sk_file_release_default(void *user, const sk_allocator *alloc, void *data, size_t size);
/* The default write: creates or replaces the file at path with stdio. */
SK_API sk_result sk_file_write_default(void *user, const char *path, const void *data, size_t size, sk_error *err);

/* Calls through an sk_file_io (NULL or zeroed members: the defaults). */
SK_API sk_result sk_file_read(const sk_file_io *io, const char *path, uint64_t max_size, const sk_allocator *alloc,
                              void **data, size_t *size, sk_error *err);
/* Releases what sk_file_read returned through the same io. */
SK_API void sk_file_release(const sk_file_io *io, const sk_allocator *alloc, void *data, size_t size);
/* Writes size bytes to path through io's write (NULL or zeroed: the default). */
SK_API sk_result sk_file_write(const sk_file_io *io, const char *path, const void *data, size_t size, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
