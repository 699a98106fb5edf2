/* CRC-32 for the WebAssembly build (zlib.h beside this file): bitwise, eight
 * steps per byte; fast enough for loading a file once. */
#include "zlib.h"

#include <stdint.h>

uLong crc32_z(uLong crc, const Bytef *buf, size_t len) {
    if (!buf) return 0;
    uint32_t c = ~(uint32_t)crc;
    for (size_t i = 0; i < len; i++) {
        c ^= buf[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return (uLong)~c;
}

uLong crc32(uLong crc, const Bytef *buf, uInt len) { return crc32_z(crc, buf, len); }
