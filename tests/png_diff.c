/* sk_png_diff A.png B.png [TOLERANCE [X Y W H]]: compares two PNG images of the same
 * size pixel by pixel (RGB; a pixel differs when any channel differs by more
 * than TOLERANCE, default 24 of 255) and prints "DIFFERING TOTAL", and with a
 * rectangle (pixels, top row 0) "DIFFERING TOTAL DIFFERING_INSIDE". Exit 0,
 * or 2 when a file cannot be read or the sizes differ. Used by the shell
 * tests (cli_view.sh) to compare the viewer's window with off-screen renders. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *read_rgb(const char *path, unsigned *w, unsigned *h) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) {
        fprintf(stderr, "sk_png_diff: %s: %s\n", path, img.message);
        return NULL;
    }
    img.format = PNG_FORMAT_RGB;
    unsigned char *buf = malloc(PNG_IMAGE_SIZE(img));
    if (!buf || !png_image_finish_read(&img, NULL, buf, 0, NULL)) {
        fprintf(stderr, "sk_png_diff: %s: %s\n", path, buf ? img.message : "out of memory");
        free(buf);
        png_image_free(&img);
        return NULL;
    }
    *w = img.width, *h = img.height;
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4 && argc != 8) {
        fprintf(stderr, "usage: sk_png_diff A.png B.png [TOLERANCE [X Y W H]]\n");
        return 2;
    }
    int tol = argc >= 4 ? atoi(argv[3]) : 24;
    long rx = 0, ry = 0, rw = 0, rh = 0;
    if (argc == 8) rx = atol(argv[4]), ry = atol(argv[5]), rw = atol(argv[6]), rh = atol(argv[7]);
    unsigned wa, ha, wb, hb;
    unsigned char *a = read_rgb(argv[1], &wa, &ha), *b = read_rgb(argv[2], &wb, &hb);
    int rc = 2;
    if (a && b && (wa != wb || ha != hb)) fprintf(stderr, "sk_png_diff: sizes differ: %ux%u vs %ux%u\n", wa, ha, wb, hb);
    else if (a && b) {
        size_t n = (size_t)wa * ha, d = 0, in = 0;
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++)
                if (abs((int)a[3 * i + c] - (int)b[3 * i + c]) > tol) {
                    long x = (long)(i % wa), y = (long)(i / wa);
                    d++;
                    in += x >= rx && x < rx + rw && y >= ry && y < ry + rh;
                    break;
                }
        if (argc == 8) printf("%zu %zu %zu\n", d, n, in);
        else printf("%zu %zu\n", d, n);
        rc = 0;
    }
    free(a), free(b);
    return rc;
}
