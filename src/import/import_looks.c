/* skelanim — assimp materials to sk_material: base colour (base colour, else
 * diffuse; alpha from opacity), metallic and roughness where stated, two-sided,
 * and the base-colour (else diffuse) texture: embedded images keep their
 * encoded bytes, external ones their path (sk_import_file then reads them
 * from the model's folder, import.c). */
#include "import/import_ctx.h"

#include <assimp/material.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(code, ...) (sk_error_set(c->err, code, __VA_ARGS__))
#define OOM() FAIL(SK_ERR_OUT_OF_MEMORY, "%s: out of memory", c->what)

static bool get_float(const struct aiMaterial *m, const char *key, float *out) {
    ai_real v = 0;
    unsigned int one = 1;
    if (aiGetMaterialFloatArray(m, key, 0, 0, &v, &one) != aiReturn_SUCCESS || one != 1 || !isfinite(v)) return false;
    *out = (float)v;
    return true;
}

static const char *mime_of(const struct aiTexture *t) {
    const unsigned char *d = (const unsigned char *)t->pcData;
    if (t->mWidth >= 8 && d[0] == 0x89 && d[1] == 'P' && d[2] == 'N' && d[3] == 'G') return "image/png";
    if (t->mWidth >= 3 && d[0] == 0xff && d[1] == 0xd8 && d[2] == 0xff) return "image/jpeg";
    char h[sizeof t->achFormatHint + 1];
    memcpy(h, t->achFormatHint, sizeof t->achFormatHint);
    h[sizeof t->achFormatHint] = 0;
    if (!strcmp(h, "png")) return "image/png";
    if (!strcmp(h, "jpg") || !strcmp(h, "jpeg")) return "image/jpeg";
    return "";
}

static const char *base_name(const char *p) {
    const char *s = p;
    for (const char *q = p; *q; q++)
        if (*q == '/' || *q == '\\') s = q + 1;
    return s;
}

/* The embedded texture a material's path names ("*N", or the embedded
 * texture's own file name), or -1. */
static int32_t embedded_index(const struct aiScene *sc, const char *path) {
    if (path[0] == '*') {
        char *end = NULL;
        unsigned long v = strtoul(path + 1, &end, 10);
        return end && end != path + 1 && !*end && v < sc->mNumTextures ? (int32_t)v : -2;
    }
    if (!sc->mTextures) return -1;
    char fb[MAXLEN];
    for (uint32_t i = 0; i < sc->mNumTextures; i++) {
        const struct aiTexture *t = sc->mTextures[i];
        if (!t) continue;
        const char *f = sk_import_str(&t->mFilename, fb);
        if (f[0] && (!strcmp(f, path) || !strcmp(base_name(f), base_name(path)))) return (int32_t)i;
    }
    return -1;
}

sk_result sk_import_looks(sk_import_ctx *c) {
    const struct aiScene *sc = c->scene;
    sk_asset *a = c->asset;
    uint32_t n = sc->mNumMaterials;
    if (!n) return SK_OK;
    if (!sc->mMaterials) return FAIL(SK_ERR_INVALID_DATA, "%s: %u materials without a list", c->what, n);
    if (n > 1000000u) return FAIL(SK_ERR_LIMIT, "%s: %u materials", c->what, n);
    if (sc->mNumTextures && !sc->mTextures)
        return FAIL(SK_ERR_INVALID_DATA, "%s: %u embedded textures without a list", c->what, sc->mNumTextures);
    sk_material *mats = sk_asset_alloc(a, (size_t)n * sizeof *mats);
    sk_texture *texs = sk_asset_alloc(a, (size_t)n * sizeof *texs);
    sk_image *imgs = sk_asset_alloc(a, (size_t)n * sizeof *imgs);
    if (!mats || !texs || !imgs) return OOM();
    uint32_t nt = 0;
    char buf[MAXLEN];
    for (uint32_t i = 0; i < n; i++) {
        const struct aiMaterial *m = sc->mMaterials[i];
        if (!m || (m->mNumProperties && !m->mProperties))
            return FAIL(SK_ERR_INVALID_DATA, "%s: materials/%u has no property list", c->what, i);
        sk_material *o = &mats[i];
        struct aiString s;
        o->name = sk_asset_strdup(a, aiGetMaterialString(m, AI_MATKEY_NAME, &s) == aiReturn_SUCCESS
                                         ? sk_import_str(&s, buf)
                                         : "");
        if (!o->name) return OOM();
        struct aiColor4D col;
        o->base_color[0] = o->base_color[1] = o->base_color[2] = o->base_color[3] = 1.0f;
        if (aiGetMaterialColor(m, AI_MATKEY_BASE_COLOR, &col) == aiReturn_SUCCESS ||
            aiGetMaterialColor(m, AI_MATKEY_COLOR_DIFFUSE, &col) == aiReturn_SUCCESS) {
            const float v[4] = {col.r, col.g, col.b, col.a};
            for (int k = 0; k < 4; k++)
                if (isfinite(v[k])) o->base_color[k] = v[k] < 0.0f ? 0.0f : v[k] > 1.0f ? 1.0f : v[k];
        }
        float opacity;
        if (get_float(m, "$mat.opacity", &opacity) && opacity >= 0.0f && opacity < 1.0f) {
            o->base_color[3] = opacity;
            o->alpha_mode = SK_ALPHA_BLEND;
        } else o->alpha_mode = SK_ALPHA_OPAQUE;
        /* Not a metal unless the file says so (the formats without PBR
         * parameters describe dielectrics); fully rough. */
        o->metallic = 0.0f;
        o->roughness = 1.0f;
        float f;
        if (get_float(m, "$mat.metallicFactor", &f)) o->metallic = f < 0 ? 0 : f > 1 ? 1 : f;
        if (get_float(m, "$mat.roughnessFactor", &f)) o->roughness = f < 0 ? 0 : f > 1 ? 1 : f;
        o->alpha_cutoff = 0.5f;
        int two = 0;
        unsigned int one = 1;
        o->double_sided = aiGetMaterialIntegerArray(m, AI_MATKEY_TWOSIDED, &two, &one) == aiReturn_SUCCESS && two;
        o->base_color_texture.texture = -1;
        struct aiString path;
        unsigned int uvindex = 0;
        if (aiGetMaterialTexture(m, aiTextureType_BASE_COLOR, 0, &path, NULL, &uvindex, NULL, NULL, NULL, NULL) !=
                aiReturn_SUCCESS &&
            aiGetMaterialTexture(m, aiTextureType_DIFFUSE, 0, &path, NULL, &uvindex, NULL, NULL, NULL, NULL) !=
                aiReturn_SUCCESS)
            continue;
        const char *p = sk_import_str(&path, buf);
        if (!p[0]) continue;
        int32_t e = embedded_index(sc, p);
        if (e == -2) return FAIL(SK_ERR_INVALID_DATA, "%s: materials/%u: texture '%.120s' names no embedded texture "
                                 "(the file has %u)", c->what, i, p, sc->mNumTextures);
        sk_image *img = &imgs[nt];
        img->name = "";
        img->mime_type = "";
        img->uri = "";
        if (e >= 0) {
            const struct aiTexture *t = sc->mTextures[e];
            if (!t || (t->mWidth && !t->pcData))
                return FAIL(SK_ERR_INVALID_DATA, "%s: textures/%d has no data", c->what, e);
            if (t->mHeight == 0 && t->mWidth) {
                uint8_t *d = sk_asset_alloc(a, t->mWidth);
                if (!d) return OOM();
                memcpy(d, t->pcData, t->mWidth);
                img->data = d;
                img->size = t->mWidth;
                img->mime_type = mime_of(t);
            } else if (t->mHeight) {
                sk_import_warn(c, "%s: textures/%d: %ux%u raw texels are not kept (only encoded images are)", c->what,
                               e, t->mWidth, t->mHeight);
            }
        } else {
            /* External: the path as written, with '\\' as '/' (sk_import_file reads it from the model's folder). */
            char *u = sk_asset_strdup(a, p);
            if (!u) return OOM();
            for (char *q = u; *q; q++)
                if (*q == '\\') *q = '/';
            img->uri = u;
        }
        texs[nt].name = "";
        texs[nt].image = (int32_t)nt;
        texs[nt].sampler = -1;
        o->base_color_texture.texture = (int32_t)nt;
        o->base_color_texture.texcoord = uvindex;
        nt++;
    }
    a->material_count = n;
    a->materials = mats;
    a->texture_count = nt;
    a->textures = texs;
    a->image_count = nt;
    a->images = imgs;
    return SK_OK;
}
