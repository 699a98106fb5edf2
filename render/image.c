/* PNG (libpng) and animated GIF (giflib) writing. */
#include "skr.h"

#include <fcntl.h>
#include <gif_lib.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool ends_with(const char *s, const char *e) {
    size_t n = strlen(s), m = strlen(e);
    return n >= m && strcmp(s + n - m, e) == 0;
}

sk_result skr_write_image(const char *path, const unsigned char *rgb, int w, int h, sk_error *err) {
    if (!ends_with(path, ".png") && !ends_with(path, ".PNG"))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: only .png images are written", path);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)w;
    img.height = (png_uint_32)h;
    img.format = PNG_FORMAT_RGB;
    if (!png_image_write_to_file(&img, path, 0, rgb, w * 3, NULL))
        return sk_error_set(err, SK_ERR_IO, "%s: %s", path, img.message);
    return SK_OK;
}

struct skr_gif {
    GifFileType *f;
    int w, h;
    GifByteType *r, *g, *b, *idx;
};

sk_result skr_gif_open(const char *path, int w, int h, skr_gif **out, sk_error *err) {
    *out = NULL;
    int e = 0;
    skr_gif *g = calloc(1, sizeof *g);
    if (!g) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    size_t n = (size_t)w * (size_t)h;
    g->r = malloc(n), g->g = malloc(n), g->b = malloc(n), g->idx = malloc(n);
    g->w = w, g->h = h;
    /* Opened here (giflib's own open uses mode 0600); giflib closes the descriptor. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    g->f = fd >= 0 ? EGifOpenFileHandle(fd, &e) : NULL;
    if (!g->f && fd >= 0) close(fd);
    if (!g->f || !g->r || !g->g || !g->b || !g->idx) {
        free(g->r), free(g->g), free(g->b), free(g->idx);
        free(g);
        return sk_error_set(err, SK_ERR_IO, "%s: cannot create GIF (%s)", path, GifErrorString(e));
    }
    EGifSetGifVersion(g->f, true);
    if (EGifPutScreenDesc(g->f, w, h, 8, 0, NULL) == GIF_ERROR) {
        skr_gif_close(g, NULL);
        return sk_error_set(err, SK_ERR_IO, "%s: cannot write the GIF header", path);
    }
    /* Loop forever (NETSCAPE2.0 application extension). */
    unsigned char loop[3] = {1, 0, 0};
    EGifPutExtensionLeader(g->f, APPLICATION_EXT_FUNC_CODE);
    EGifPutExtensionBlock(g->f, 11, "NETSCAPE2.0");
    EGifPutExtensionBlock(g->f, 3, loop);
    EGifPutExtensionTrailer(g->f);
    *out = g;
    return SK_OK;
}

sk_result skr_gif_add(skr_gif *g, const unsigned char *rgb, int delay_cs, sk_error *err) {
    size_t n = (size_t)g->w * (size_t)g->h;
    for (size_t i = 0; i < n; i++) g->r[i] = rgb[3 * i], g->g[i] = rgb[3 * i + 1], g->b[i] = rgb[3 * i + 2];
    GifColorType colors[256];
    int size = 256;
    if (GifQuantizeBuffer((unsigned)g->w, (unsigned)g->h, &size, g->r, g->g, g->b, g->idx, colors) == GIF_ERROR)
        return sk_error_set(err, SK_ERR_INVALID_DATA, "GIF colour quantisation failed");
    ColorMapObject *map = GifMakeMapObject(256, colors);
    if (!map) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    GraphicsControlBlock gcb = {0, false, delay_cs, NO_TRANSPARENT_COLOR};
    GifByteType ext[4];
    EGifGCBToExtension(&gcb, ext);
    bool ok = EGifPutExtension(g->f, GRAPHICS_EXT_FUNC_CODE, 4, ext) != GIF_ERROR &&
              EGifPutImageDesc(g->f, 0, 0, g->w, g->h, false, map) != GIF_ERROR;
    for (int y = 0; ok && y < g->h; y++) ok = EGifPutLine(g->f, g->idx + (size_t)y * g->w, g->w) != GIF_ERROR;
    GifFreeMapObject(map);
    return ok ? SK_OK : sk_error_set(err, SK_ERR_IO, "cannot write a GIF frame");
}

sk_result skr_gif_close(skr_gif *g, sk_error *err) {
    if (!g) return SK_OK;
    int e = 0;
    bool ok = !g->f || EGifCloseFile(g->f, &e) != GIF_ERROR;
    free(g->r), free(g->g), free(g->b), free(g->idx);
    free(g);
    return ok ? SK_OK : sk_error_set(err, SK_ERR_IO, "cannot finish the GIF (%s)", GifErrorString(e));
}
