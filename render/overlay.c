/* Overlay primitives (skr.h, "Overlay"): thick lines in world space (a
 * geometry shader widens each segment into a screen-space quad, since core
 * profile contexts need not draw lines wider than 1 pixel), filled convex
 * polygons, and an RGBA image blended over the framebuffer (the 2D HUD).
 * OpenGL 3.3 core through libepoxy; its own programs and buffers, so the
 * renderer's state is not touched beyond blending and depth test, which are
 * restored (blending off, depth test on) after each call. */
#include "skr_internal.h"

#include <epoxy/gl.h>
#include <stdlib.h>
#include <string.h>

static const char *OV_VS =
    "#version 330 core\n"
    "layout(location=0) in vec3 a_pos;\n"
    "uniform mat4 u_viewproj; uniform float u_bias;\n"
    "void main() { vec4 p = u_viewproj * vec4(a_pos, 1.0); p.z -= u_bias * p.w; gl_Position = p; }\n";

/* Each segment becomes a quad u_width pixels wide, extended by half a width
 * at both ends so strips join without gaps; an end behind the eye is moved
 * onto the plane w = 1e-4 first. */
static const char *OV_GS =
    "#version 330 core\n"
    "layout(lines) in;\n"
    "layout(triangle_strip, max_vertices = 4) out;\n"
    "uniform vec2 u_viewport; uniform float u_width;\n"
    "void main() {\n"
    "  vec4 a = gl_in[0].gl_Position, b = gl_in[1].gl_Position;\n"
    "  const float e = 1e-4;\n"
    "  if (a.w < e && b.w < e) return;\n"
    "  if (a.w < e) a = mix(a, b, (e - a.w) / (b.w - a.w));\n"
    "  if (b.w < e) b = mix(b, a, (e - b.w) / (a.w - b.w));\n"
    "  vec2 half_vp = 0.5 * u_viewport;\n"
    "  vec2 sa = a.xy / a.w * half_vp, sb = b.xy / b.w * half_vp;\n"
    "  vec2 d = sb - sa;\n"
    "  float len = length(d);\n"
    "  d = len > 1e-6 ? d / len : vec2(1.0, 0.0);\n"
    "  vec2 n = vec2(-d.y, d.x) * (0.5 * u_width) / half_vp;\n"
    "  vec2 x = d * (0.5 * u_width) / half_vp;\n"
    "  gl_Position = vec4(a.xy + (n - x) * a.w, a.zw); EmitVertex();\n"
    "  gl_Position = vec4(a.xy + (-n - x) * a.w, a.zw); EmitVertex();\n"
    "  gl_Position = vec4(b.xy + (n + x) * b.w, b.zw); EmitVertex();\n"
    "  gl_Position = vec4(b.xy + (-n + x) * b.w, b.zw); EmitVertex();\n"
    "  EndPrimitive();\n"
    "}\n";

static const char *OV_FS =
    "#version 330 core\n"
    "uniform vec4 u_rgba; out vec4 o_color;\n"
    "void main() { o_color = u_rgba; }\n";

static const char *IMG_VS =
    "#version 330 core\n"
    "layout(location=0) in vec2 a_uv;\n"
    "uniform vec4 u_rect;\n" /* x0, y0, x1, y1 in NDC */
    "out vec2 v_uv;\n"
    "void main() { v_uv = a_uv; gl_Position = vec4(mix(u_rect.xy, u_rect.zw, a_uv), 0.0, 1.0); }\n";

/* The image is premultiplied BGRA bytes (cairo's ARGB32 on little-endian),
 * uploaded as GL_BGRA, so the sampler returns premultiplied RGBA. */
static const char *IMG_FS =
    "#version 330 core\n"
    "in vec2 v_uv; uniform sampler2D u_tex; out vec4 o_color;\n"
    "void main() { o_color = texture(u_tex, v_uv); }\n";

struct skr_overlay {
    GLuint line_prog, fill_prog, img_prog;
    GLuint vao, vbo, img_vao, img_vbo, tex;
    size_t cap;
    int tex_w, tex_h;
    GLint l_viewproj, l_bias, l_viewport, l_width, l_rgba, f_viewproj, f_bias, f_rgba, i_rect;
};

sk_result skr_overlay_create(skr_overlay **out, sk_error *err) {
    *out = NULL;
    skr_overlay *o = calloc(1, sizeof *o);
    if (!o) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    o->line_prog = skr_gl_program(OV_VS, OV_GS, OV_FS, err);
    o->fill_prog = o->line_prog ? skr_gl_program(OV_VS, NULL, OV_FS, err) : 0;
    o->img_prog = o->fill_prog ? skr_gl_program(IMG_VS, NULL, IMG_FS, err) : 0;
    if (!o->img_prog) {
        skr_overlay_destroy(o);
        return err && err->code ? err->code : SK_ERR_UNSUPPORTED;
    }
    o->l_viewproj = glGetUniformLocation(o->line_prog, "u_viewproj");
    o->l_bias = glGetUniformLocation(o->line_prog, "u_bias");
    o->l_viewport = glGetUniformLocation(o->line_prog, "u_viewport");
    o->l_width = glGetUniformLocation(o->line_prog, "u_width");
    o->l_rgba = glGetUniformLocation(o->line_prog, "u_rgba");
    o->f_viewproj = glGetUniformLocation(o->fill_prog, "u_viewproj");
    o->f_bias = glGetUniformLocation(o->fill_prog, "u_bias");
    o->f_rgba = glGetUniformLocation(o->fill_prog, "u_rgba");
    o->i_rect = glGetUniformLocation(o->img_prog, "u_rect");
    glUseProgram(o->img_prog);
    glUniform1i(glGetUniformLocation(o->img_prog, "u_tex"), 0);
    glGenVertexArrays(1, &o->vao);
    glGenBuffers(1, &o->vbo);
    glBindVertexArray(o->vao);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    static const float quad[] = {0, 0, 1, 0, 0, 1, 1, 1};
    glGenVertexArrays(1, &o->img_vao);
    glGenBuffers(1, &o->img_vbo);
    glBindVertexArray(o->img_vao);
    glBindBuffer(GL_ARRAY_BUFFER, o->img_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glBindVertexArray(0);
    glGenTextures(1, &o->tex);
    glBindTexture(GL_TEXTURE_2D, o->tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    *out = o;
    return SK_OK;
}

void skr_overlay_destroy(skr_overlay *o) {
    if (!o) return;
    glDeleteProgram(o->line_prog);
    glDeleteProgram(o->fill_prog);
    glDeleteProgram(o->img_prog);
    GLuint bufs[2] = {o->vbo, o->img_vbo}, vaos[2] = {o->vao, o->img_vao};
    glDeleteBuffers(2, bufs);
    glDeleteVertexArrays(2, vaos);
    glDeleteTextures(1, &o->tex);
    free(o);
}

static void put(skr_overlay *o, const float *xyz, uint32_t n) {
    size_t bytes = (size_t)n * 3 * sizeof(float);
    glBindVertexArray(o->vao);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    if (bytes > o->cap) {
        o->cap = bytes + bytes / 2;
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)o->cap, NULL, GL_STREAM_DRAW);
    } else {
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)o->cap, NULL, GL_STREAM_DRAW); /* orphan */
    }
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, xyz);
}

static void state_on(const skr_overlay_style *s) {
    if (s->depth_test) glEnable(GL_DEPTH_TEST);
    else glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_FALSE); /* overlays never hide what is drawn after them */
    if (s->rgba[3] < 1.0f) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    }
}

static void state_off(void) {
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
    glEnable(GL_DEPTH_TEST);
    glBindVertexArray(0);
}

void skr_overlay_lines(skr_overlay *o, const skr_camera *cam, const float *xyz, uint32_t count, bool strip,
                       const skr_overlay_style *s) {
    if (!o || count < 2) return;
    put(o, xyz, count);
    glUseProgram(o->line_prog);
    glUniformMatrix4fv(o->l_viewproj, 1, GL_FALSE, cam->viewproj.m);
    glUniform1f(o->l_bias, s->depth_test ? 2e-4f : 0.0f);
    glUniform2f(o->l_viewport, (float)cam->width, (float)cam->height);
    glUniform1f(o->l_width, s->width > 0 ? s->width : 1.0f);
    glUniform4fv(o->l_rgba, 1, s->rgba);
    state_on(s);
    glDrawArrays(strip ? GL_LINE_STRIP : GL_LINES, 0, (GLsizei)(strip ? count : count & ~1u));
    state_off();
}

void skr_overlay_polygon(skr_overlay *o, const skr_camera *cam, const float *xyz, uint32_t count,
                         const skr_overlay_style *s) {
    if (!o || count < 3) return;
    put(o, xyz, count);
    glUseProgram(o->fill_prog);
    glUniformMatrix4fv(o->f_viewproj, 1, GL_FALSE, cam->viewproj.m);
    glUniform1f(o->f_bias, s->depth_test ? 2e-4f : 0.0f);
    glUniform4fv(o->f_rgba, 1, s->rgba);
    state_on(s);
    glDrawArrays(GL_TRIANGLE_FAN, 0, (GLsizei)count);
    state_off();
}

void skr_overlay_image(skr_overlay *o, const unsigned char *bgra, int w, int h, int x, int y, int fb_w, int fb_h) {
    if (!o || w <= 0 || h <= 0 || fb_w <= 0 || fb_h <= 0) return;
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, o->tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    if (w != o->tex_w || h != o->tex_h) {
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_BGRA, GL_UNSIGNED_BYTE, bgra);
        o->tex_w = w, o->tex_h = h;
    } else {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_BGRA, GL_UNSIGNED_BYTE, bgra);
    }
    glUseProgram(o->img_prog);
    /* Pixel rows go down from the top; NDC y goes up. uv (0, 0) is the
     * image's first row, drawn at the top. */
    float x0 = 2.0f * (float)x / (float)fb_w - 1.0f, x1 = 2.0f * (float)(x + w) / (float)fb_w - 1.0f;
    float y0 = 1.0f - 2.0f * (float)y / (float)fb_h, y1 = 1.0f - 2.0f * (float)(y + h) / (float)fb_h;
    glUniform4f(o->i_rect, x0, y0, x1, y1);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA); /* premultiplied */
    glBindVertexArray(o->img_vao);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    state_off();
}
