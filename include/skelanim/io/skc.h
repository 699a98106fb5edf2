/* skelanim — the packed clip format .skc: one skeleton and all its clips
 * (compressed clips as their blobs, clips that were kept as keys as float32
 * keys) in one little-endian file with a header, a version, a CRC-32 of
 * the whole file, and the unit the positions are stored in
 * (metres per unit). The loader checks the header, the size, the checksum and
 * every offset and count against the buffer before it uses them; a clip blob
 * is checked again by sk_clip_from_compressed, and what sampling can reach
 * in model space is bounded (SK_SKC_MAX_WORLD). With in_place, compressed
 * clips are sampled straight from the caller's block (which must outlive the
 * asset); only the skeleton is copied.
 *
 * Layout (version 1; offsets from the start of the file, 4-byte aligned):
 *   header, 64 bytes: "SKC\0", u32 version, u32 header size (64), u32 file
 *     size, u32 CRC-32 (ISO-HDLC) of the file without these 4 bytes, u32 flags (0), f64
 *     metres per unit, u32 joints, u32 clips, u32 skeleton offset, u32 weight
 *     total, u32 clip table offset, u32 string offset, u32 string size,
 *     u32 0;
 *   skeleton: per joint i32 parent (< its index, -1 = root), u32 name offset
 *     and length (in the strings), f32 t[3], r[4] (x,y,z,w), s[3], u32 morph
 *     weights; then the weight total rest weights (f32);
 *   clip table: per clip u32 offset, u32 size, u32 kind (1 compressed, 0
 *     keys), u32 name offset, u32 name length, u32 0;
 *   a keys clip: u32 tracks, f32 duration, then per track u32 joint, u8 path,
 *     u8 interpolation, u16 0, u32 keys, u32 width, the times, the values;
 *   strings: the names, not terminated. */
#ifndef SKELANIM_IO_SKC_H
#define SKELANIM_IO_SKC_H

#include "skelanim/core/asset.h"
#include "skelanim/io/file.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_SKC_VERSION 1u
#define SK_SKC_MAX_BYTES 0xffffffffu /* the format's offsets are 32-bit */
/* What any clip can produce in model space (translations, scales, rest and
 * animated, through the hierarchy) is bounded by this, else the file is
 * refused (as the glTF reader's SK_GLTF_MAX_WORLD). */
#define SK_SKC_MAX_WORLD 1e15

/* The checksum a .skc stores at bytes 16..19: the CRC-32 (zlib's crc32) of
 * the file but those four bytes. For tools that edit a .skc on purpose. */
SK_API uint32_t sk_skc_checksum(const void *data, size_t size);

/* Packs a skeleton and clips (any kind) into one block from alloc (*out,
 * *size). */
SK_API sk_result sk_skc_write_memory(const sk_skeleton *skel, sk_clip *const *clips, uint32_t clip_count, double metres_per_unit,
                                     const sk_allocator *alloc, void **out, size_t *size, sk_error *err);
/* The same written to path through io (NULL: stdio). Messages start with the path. */
SK_API sk_result sk_skc_write_file(const char *path, const sk_file_io *io, const sk_skeleton *skel, sk_clip *const *clips,
                                   uint32_t clip_count, double metres_per_unit, sk_error *err);

/* An asset (skeleton, one scene, the clips; no meshes) from a .skc in memory.
 * metres_per_unit may be NULL. in_place: see above. */
SK_API sk_result sk_skc_load_memory(const void *data, size_t size, bool in_place, const sk_allocator *alloc, sk_asset **out,
                                    double *metres_per_unit, sk_error *err);
/* The same from a file (through io; NULL: stdio). Messages start with the path. */
SK_API sk_result sk_skc_load_file(const char *path, const sk_file_io *io, const sk_allocator *alloc, sk_asset **out,
                                  double *metres_per_unit, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
