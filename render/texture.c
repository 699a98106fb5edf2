/* Base-colour textures of glTF materials, decoded with stb_image (Debian's
 * libstb). The asset does not carry images, so the file is read again here:
 * the material's pbrMetallicRoughness.baseColorTexture -> texture.source ->
 * image (a bufferView of the GLB's BIN chunk, a data: URI, or a file next to
 * the .gltf). Every offset and length is checked; anything unexpected gives
 * NULL and the renderer falls back to the base colour factor. */
#include "skr_internal.h"

#include <cjson/cJSON.h>
#include <stb/stb_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len >= 0 && len < (1L << 30) && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) &&
        fread(buf, 1, (size_t)len, f) == (size_t)len) {
        *n = (size_t)len;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int b64(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static unsigned char *decode_data_uri(const char *uri, size_t *n) {
    const char *comma = strstr(uri, ";base64,");
    if (!comma) return NULL;
    const char *s = comma + 8;
    size_t len = strlen(s);
    unsigned char *out = malloc(len / 4 * 3 + 3);
    if (!out) return NULL;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len && s[i] != '='; i++) {
        int v = b64((unsigned char)s[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    *n = o;
    return out;
}

unsigned char *skr_load_base_color_texture(const char *file_path, int32_t material, int *w, int *h) {
    size_t size = 0;
    unsigned char *file = read_all(file_path, &size);
    if (!file) return NULL;
    const unsigned char *json = file, *bin = NULL;
    size_t json_len = size, bin_len = 0;
    if (size >= 20 && memcmp(file, "glTF", 4) == 0) { /* GLB: header, JSON chunk, optional BIN chunk */
        uint32_t jl = rd32(file + 12);
        if (rd32(file + 16) != 0x4E4F534Au || jl > size - 20) goto fail;
        json = file + 20, json_len = jl;
        size_t off = 20 + (size_t)jl;
        if (off + 8 <= size && rd32(file + off + 4) == 0x004E4942u) {
            uint32_t bl = rd32(file + off);
            if (bl <= size - off - 8) bin = file + off + 8, bin_len = bl;
        }
    }
    cJSON *root = cJSON_ParseWithLength((const char *)json, json_len);
    if (!root) goto fail;
    unsigned char *pixels = NULL, *encoded = NULL;
    size_t enc_len = 0;
    bool own = false;
    const cJSON *mat = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "materials"), material);
    const cJSON *ti = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(mat, "pbrMetallicRoughness"),
                                                              "baseColorTexture"), "index");
    const cJSON *tex = cJSON_IsNumber(ti) ? cJSON_GetArrayItem(cJSON_GetObjectItem(root, "textures"), ti->valueint) : NULL;
    const cJSON *src = cJSON_GetObjectItem(tex, "source");
    const cJSON *img = cJSON_IsNumber(src) ? cJSON_GetArrayItem(cJSON_GetObjectItem(root, "images"), src->valueint) : NULL;
    const cJSON *bv = cJSON_GetObjectItem(img, "bufferView"), *uri = cJSON_GetObjectItem(img, "uri");
    if (cJSON_IsNumber(bv) && bin) {
        const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "bufferViews"), bv->valueint);
        const cJSON *b = cJSON_GetObjectItem(v, "buffer"), *o = cJSON_GetObjectItem(v, "byteOffset"),
                    *l = cJSON_GetObjectItem(v, "byteLength");
        double off = cJSON_IsNumber(o) ? o->valuedouble : 0, len = cJSON_IsNumber(l) ? l->valuedouble : -1;
        if (cJSON_IsNumber(b) && b->valueint == 0 && off >= 0 && len > 0 && off + len <= (double)bin_len)
            encoded = (unsigned char *)bin + (size_t)off, enc_len = (size_t)len;
    } else if (cJSON_IsString(uri)) {
        if (strncmp(uri->valuestring, "data:", 5) == 0) {
            encoded = decode_data_uri(uri->valuestring, &enc_len);
            own = encoded != NULL;
        } else if (!strstr(uri->valuestring, "..") && uri->valuestring[0] != '/' && !strchr(uri->valuestring, ':')) {
            char path[4096];
            const char *slash = strrchr(file_path, '/');
            int dl = slash ? (int)(slash - file_path) + 1 : 0;
            if (snprintf(path, sizeof path, "%.*s%s", dl, file_path, uri->valuestring) < (int)sizeof path) {
                encoded = read_all(path, &enc_len);
                own = encoded != NULL;
            }
        }
    }
    if (encoded && enc_len > 0 && enc_len < (1u << 30)) {
        int comp = 0;
        pixels = stbi_load_from_memory(encoded, (int)enc_len, w, h, &comp, 4);
        if (pixels && (*w <= 0 || *h <= 0 || *w > 16384 || *h > 16384)) {
            stbi_image_free(pixels);
            pixels = NULL;
        }
    }
    if (own) free(encoded);
    cJSON_Delete(root);
    free(file);
    if (!pixels) return NULL;
    /* Hand back malloc'd memory (stb may use its own allocator). */
    size_t bytes = (size_t)*w * (size_t)*h * 4;
    unsigned char *out = malloc(bytes);
    if (out) memcpy(out, pixels, bytes);
    stbi_image_free(pixels);
    return out;
fail:
    free(file);
    return NULL;
}
