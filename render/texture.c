/* Base-colour textures from the asset: the material's base_color_texture ->
 * texture -> image, whose encoded bytes the loader kept (from a bufferView, a
 * data: URI or a file, however the glTF stored them); decoded here with
 * stb_image (Debian's libstb) and uploaded with the texture's sampler
 * settings. Anything missing or undecodable gives no texture: the renderer
 * falls back to the base colour factor. */
#include "skr_internal.h"

#include <epoxy/gl.h>
#include <stb/stb_image.h>
#include <stdlib.h>
#include <string.h>

unsigned char *skr_decode_image(const sk_image *img, int *w, int *h) {
    if (!img || !img->data || img->size == 0 || img->size > (1u << 30)) return NULL;
    int comp = 0;
    unsigned char *pixels = stbi_load_from_memory(img->data, (int)img->size, w, h, &comp, 4);
    if (!pixels) return NULL;
    if (*w <= 0 || *h <= 0 || *w > 16384 || *h > 16384) {
        stbi_image_free(pixels);
        return NULL;
    }
    /* Hand back malloc'd memory (stb may use its own allocator). */
    size_t bytes = (size_t)*w * (size_t)*h * 4;
    unsigned char *out = malloc(bytes);
    if (out) memcpy(out, pixels, bytes);
    stbi_image_free(pixels);
    return out;
}

unsigned skr_material_texture(skr_model *m, int32_t material) {
    const sk_asset *a = m->asset;
    if (material < 0 || (uint32_t)material >= a->material_count) return 0;
    const sk_texture_ref *ref = &a->materials[material].base_color_texture;
    if (ref->texture < 0 || ref->texcoord != 0) return 0; /* primitives carry TEXCOORD_0 only */
    uint32_t t = (uint32_t)ref->texture;
    if (m->texture_state[t]) return m->textures[t]; /* decoded (or failed) before */
    m->texture_state[t] = 1;
    const sk_texture *tex = &a->textures[t];
    if (tex->image < 0) return 0;
    int w = 0, h = 0;
    unsigned char *px = skr_decode_image(&a->images[tex->image], &w, &h);
    if (!px) return 0;
    const sk_sampler *s = tex->sampler >= 0 ? &a->samplers[tex->sampler] : NULL;
    GLuint name = 0;
    glGenTextures(1, &name);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, name);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    free(px);
    glGenerateMipmap(GL_TEXTURE_2D);
    /* glTF's sampler values are the GL enums; unspecified filters: trilinear. */
    GLint min = s && s->min_filter ? (GLint)s->min_filter : GL_LINEAR_MIPMAP_LINEAR;
    GLint mag = s && s->mag_filter ? (GLint)s->mag_filter : GL_LINEAR;
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mag);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, s && s->wrap_s ? (GLint)s->wrap_s : GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, s && s->wrap_t ? (GLint)s->wrap_t : GL_REPEAT);
    m->textures[t] = name;
    return name;
}
