/* The part of zlib's interface the io layer uses (src/io/skc.c: the .skc
 * checksum), for the WebAssembly build only: emscripten's own zlib is a port
 * fetched from the network at first use, which a build machine may not
 * reach. crc32 and crc32_z compute zlib's CRC-32 (ISO 3309 / ITU-T V.42,
 * reflected polynomial 0xEDB88320, the same values: docs/web.md). */
#ifndef SKELANIM_WEB_ZLIB_H
#define SKELANIM_WEB_ZLIB_H

#include <stddef.h>

typedef unsigned char Bytef;
typedef unsigned int uInt;
typedef unsigned long uLong;
#define Z_NULL 0

/* crc updated with len bytes at buf; buf NULL gives the initial value 0. */
uLong crc32(uLong crc, const Bytef *buf, uInt len);
uLong crc32_z(uLong crc, const Bytef *buf, size_t len);

#endif
