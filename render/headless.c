/* Off-screen OpenGL 3.3 core context: EGL on Mesa's surfaceless platform (no
 * display server, no GPU: llvmpipe), a framebuffer object with an optional
 * multisampled colour/depth pair resolved into a plain one for reading. */
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NODELETE */
#include "skr.h"

#include <dlfcn.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

struct skr_headless {
    EGLDisplay dpy;
    EGLContext ctx;
    int w, h, samples;
    GLuint fbo, color, depth;       /* render target (maybe multisampled) */
    GLuint rfbo, rcolor;            /* resolve target */
};

static EGLDisplay open_display(void) {
    EGLDisplay d = EGL_NO_DISPLAY;
    /* Client extensions are queried on EGL_NO_DISPLAY. */
    if (epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless"))
        d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (d == EGL_NO_DISPLAY && epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_EXT_platform_device")) {
        /* Fallback: the first EGL device (e.g. a real GPU without a display). */
        EGLDeviceEXT devs[4];
        EGLint n = 0;
        if (eglQueryDevicesEXT(4, devs, &n) && n > 0)
            d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devs[0], NULL);
    }
    return d;
}

/* Mesa unloads its DRI driver (swrast_dri.so and the like) at exit, before
 * LeakSanitizer looks; the few objects the driver keeps per display then
 * look leaked, from "<unknown module>", which no suppression can name. Keeping
 * the driver mapped (RTLD_NODELETE) leaves them reachable from its data: every
 * program that renders (the tool, the tests) runs clean under
 * LeakSanitizer with no suppression file. Harmless otherwise: the process
 * is ending anyway. */
static int pin_dri_driver(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    const char *name = info->dlpi_name;
    size_t n = name ? strlen(name) : 0;
    if (n > 7 && !strcmp(name + n - 7, "_dri.so")) {
        void *h = dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        if (h) dlclose(h);
    }
    return 0;
}

skr_headless *skr_headless_create(int w, int h, int samples, sk_error *err) {
    if (w <= 0 || h <= 0 || w > 16384 || h > 16384) {
        sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "image size %dx%d out of range", w, h);
        return NULL;
    }
    skr_headless *hd = calloc(1, sizeof *hd);
    if (!hd) {
        sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    hd->w = w, hd->h = h, hd->samples = samples > 1 ? samples : 0;
    hd->dpy = open_display();
    EGLint maj = 0, min = 0;
    if (hd->dpy == EGL_NO_DISPLAY || !eglInitialize(hd->dpy, &maj, &min)) {
        sk_error_set(err, SK_ERR_UNSUPPORTED,
                     "no off-screen EGL display (needs Mesa's EGL with EGL_MESA_platform_surfaceless: Debian "
                     "packages libegl1, libegl-mesa0, libgl1-mesa-dri)");
        free(hd);
        return NULL;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        sk_error_set(err, SK_ERR_UNSUPPORTED, "EGL cannot bind desktop OpenGL");
        eglTerminate(hd->dpy);
        free(hd);
        return NULL;
    }
    const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    hd->ctx = eglCreateContext(hd->dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attrs);
    if (hd->ctx == EGL_NO_CONTEXT || !eglMakeCurrent(hd->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, hd->ctx)) {
        sk_error_set(err, SK_ERR_UNSUPPORTED, "cannot create an OpenGL 3.3 core context without a surface (EGL error 0x%x)",
                     (unsigned)eglGetError());
        if (hd->ctx != EGL_NO_CONTEXT) eglDestroyContext(hd->dpy, hd->ctx);
        eglTerminate(hd->dpy);
        free(hd);
        return NULL;
    }
    GLint max_samples = 0;
    glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
    if (hd->samples > max_samples) hd->samples = max_samples > 1 ? max_samples : 0;
    glGenFramebuffers(1, &hd->fbo);
    glGenRenderbuffers(1, &hd->color);
    glGenRenderbuffers(1, &hd->depth);
    glBindFramebuffer(GL_FRAMEBUFFER, hd->fbo);
    glBindRenderbuffer(GL_RENDERBUFFER, hd->color);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, hd->samples, GL_RGBA8, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, hd->color);
    glBindRenderbuffer(GL_RENDERBUFFER, hd->depth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, hd->samples, GL_DEPTH_COMPONENT24, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, hd->depth);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (st == GL_FRAMEBUFFER_COMPLETE && hd->samples) {
        glGenFramebuffers(1, &hd->rfbo);
        glGenRenderbuffers(1, &hd->rcolor);
        glBindFramebuffer(GL_FRAMEBUFFER, hd->rfbo);
        glBindRenderbuffer(GL_RENDERBUFFER, hd->rcolor);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, hd->rcolor);
        st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    }
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        sk_error_set(err, SK_ERR_UNSUPPORTED, "off-screen framebuffer incomplete (0x%x)", (unsigned)st);
        skr_headless_destroy(hd);
        return NULL;
    }
    skr_headless_bind(hd);
    dl_iterate_phdr(pin_dri_driver, NULL);
    return hd;
}

void skr_headless_bind(skr_headless *hd) {
    glBindFramebuffer(GL_FRAMEBUFFER, hd->fbo);
    glViewport(0, 0, hd->w, hd->h);
}

void skr_headless_read(skr_headless *hd, unsigned char *rgb) {
    GLuint src = hd->fbo;
    if (hd->samples) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, hd->fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, hd->rfbo);
        glBlitFramebuffer(0, 0, hd->w, hd->h, 0, 0, hd->w, hd->h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        src = hd->rfbo;
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, src);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    size_t row = (size_t)hd->w * 3;
    unsigned char *tmp = malloc(row * (size_t)hd->h);
    if (!tmp) return;
    glReadPixels(0, 0, hd->w, hd->h, GL_RGB, GL_UNSIGNED_BYTE, tmp);
    for (int y = 0; y < hd->h; y++) memcpy(rgb + (size_t)y * row, tmp + (size_t)(hd->h - 1 - y) * row, row);
    free(tmp);
    skr_headless_bind(hd);
}

void skr_headless_destroy(skr_headless *hd) {
    if (!hd) return;
    if (hd->ctx != EGL_NO_CONTEXT) {
        GLuint rb[3] = {hd->color, hd->depth, hd->rcolor}, fb[2] = {hd->fbo, hd->rfbo};
        glDeleteRenderbuffers(3, rb);
        glDeleteFramebuffers(2, fb);
        eglMakeCurrent(hd->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(hd->dpy, hd->ctx);
    }
    eglTerminate(hd->dpy);
    eglReleaseThread();
    free(hd);
}
