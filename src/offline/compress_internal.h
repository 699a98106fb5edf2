/* Private to libskelanim_offline and its tests. Not installed. */
#ifndef SKELANIM_OFFLINE_COMPRESS_INTERNAL_H
#define SKELANIM_OFFLINE_COMPRESS_INTERNAL_H

#include "skelanim/offline/compress.h"

/* sk_clip_compress with its AVX2 kernels (when the CPU has them; simd true)
 * or the scalar ones: the same blob either way (test_compress). */
sk_result sk_clip_compress_simd(const sk_clip *clip, const sk_skeleton *s, const sk_compress_options *opt,
                                const sk_allocator *alloc, bool simd, sk_clip **out, sk_compress_stats *stats,
                                sk_error *err);

#endif
