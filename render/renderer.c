/* Renderer: shaders, model upload, GPU/CPU skinned drawing, grid, skeleton
 * overlay, markers (the camera is render/camera.c). OpenGL 3.3 core through libepoxy.
 *
 * Palette layout on the GPU: one texture buffer (GL_RGBA32F), 4 texels per
 * matrix = its 4 columns (sk_mat4 is column-major, so the bytes go up as they
 * are: no transpose). Instance i's palette starts at matrix i * palette_size;
 * an item (mesh primitive) reads from its offset inside it. Size is limited
 * only by GL_MAX_TEXTURE_BUFFER_SIZE texels (>= 65536 in GL 3.3, 2^27 in
 * Mesa), so skeletons with any number of joints work. */
#include "skr.h"
#include "skr_internal.h"

#include <epoxy/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Shaders ------------------------------------------------------------------ */

static const char *MESH_VS =
    "#version 330 core\n"
    "layout(location=0) in vec3 a_pos;\n"
    "layout(location=1) in vec3 a_nrm;\n"
    "layout(location=2) in vec2 a_uv;\n"
    "layout(location=3) in uvec4 a_j0;\n"
    "layout(location=4) in vec4 a_w0;\n"
    "layout(location=5) in uvec4 a_j1;\n"
    "layout(location=6) in vec4 a_w1;\n"
    "uniform samplerBuffer u_palette;\n"
    "uniform samplerBuffer u_tints;\n"
    "uniform int u_skin, u_base, u_stride, u_instance0, u_has_tints;\n"
    "uniform mat4 u_viewproj;\n"
    "uniform float u_point_size;\n"
    "out vec3 v_nrm; out vec2 v_uv; out vec4 v_tint; out vec3 v_world;\n"
    "mat4 joint(int base, uint j) {\n"
    "  int t = (base + int(j)) * 4;\n"
    "  return mat4(texelFetch(u_palette, t), texelFetch(u_palette, t + 1),\n"
    "              texelFetch(u_palette, t + 2), texelFetch(u_palette, t + 3));\n"
    "}\n"
    "void main() {\n"
    "  int inst = u_instance0 + gl_InstanceID;\n"
    "  vec4 p = vec4(a_pos, 1.0);\n"
    "  vec3 n = a_nrm;\n"
    "  if (u_skin != 0) {\n"
    "    int base = u_base + inst * u_stride;\n"
    "    mat4 m = a_w0.x * joint(base, a_j0.x);\n"
    "    if (a_w0.y > 0.0) m += a_w0.y * joint(base, a_j0.y);\n"
    "    if (a_w0.z > 0.0) m += a_w0.z * joint(base, a_j0.z);\n"
    "    if (a_w0.w > 0.0) m += a_w0.w * joint(base, a_j0.w);\n"
    "    if (a_w1.x > 0.0) {\n"
    "      m += a_w1.x * joint(base, a_j1.x);\n"
    "      if (a_w1.y > 0.0) m += a_w1.y * joint(base, a_j1.y);\n"
    "      if (a_w1.z > 0.0) m += a_w1.z * joint(base, a_j1.z);\n"
    "      if (a_w1.w > 0.0) m += a_w1.w * joint(base, a_j1.w);\n"
    "    }\n"
    "    p = m * p;\n"
    "    n = mat3(m) * n;\n"
    "  }\n"
    "  v_world = p.xyz; v_nrm = n; v_uv = a_uv;\n"
    "  v_tint = u_has_tints != 0 ? texelFetch(u_tints, inst) : vec4(1.0);\n"
    "  gl_Position = u_viewproj * p;\n"
    "  gl_PointSize = u_point_size;\n"
    "}\n";

static const char *MESH_FS =
    "#version 330 core\n"
    "in vec3 v_nrm; in vec2 v_uv; in vec4 v_tint; in vec3 v_world;\n"
    "uniform vec4 u_color;\n"
    "uniform vec4 u_flat;\n"
    "uniform sampler2D u_tex;\n"
    "uniform int u_has_tex;\n"
    "uniform vec3 u_eye;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  if (u_flat.a > 0.0) { o_color = vec4(u_flat.rgb, 1.0); return; }\n"
    "  vec3 n = normalize(v_nrm);\n"
    "  vec3 V = normalize(u_eye - v_world);\n"
    "  if (dot(n, V) < 0.0) n = -n;\n"
    "  vec4 base = u_color * v_tint;\n"
    "  if (u_has_tex != 0) base *= texture(u_tex, v_uv);\n"
    "  vec3 L = normalize(vec3(0.45, 0.8, 0.55));\n"
    "  float d = max(dot(n, L), 0.0);\n"
    "  vec3 hemi = mix(vec3(0.32, 0.30, 0.28), vec3(0.55, 0.62, 0.75), n.y * 0.5 + 0.5);\n"
    "  vec3 H = normalize(L + V);\n"
    "  float s = pow(max(dot(n, H), 0.0), 32.0) * 0.15;\n"
    "  vec3 c = base.rgb * (hemi + 0.85 * d) + vec3(s);\n"
    "  o_color = vec4(pow(clamp(c, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);\n"
    "}\n";

static const char *GRID_VS =
    "#version 330 core\n"
    "layout(location=0) in vec2 a_xz;\n"
    "uniform mat4 u_viewproj; uniform vec3 u_center; uniform float u_extent; uniform float u_y;\n"
    "uniform vec2 u_slope;\n" /* y = u_y + u_slope.x * x + u_slope.y * z */
    "out vec3 v_world;\n"
    "void main() {\n"
    "  vec2 xz = vec2(u_center.x + a_xz.x * u_extent, u_center.z + a_xz.y * u_extent);\n"
    "  v_world = vec3(xz.x, u_y + dot(u_slope, xz), xz.y);\n"
    "  gl_Position = u_viewproj * vec4(v_world, 1.0);\n"
    "}\n";

static const char *GRID_FS =
    "#version 330 core\n"
    "in vec3 v_world;\n"
    "uniform vec3 u_bg; uniform vec3 u_center; uniform float u_extent;\n"
    "out vec4 o_color;\n"
    "float lines(vec2 p, float cell) {\n"
    "  vec2 g = abs(fract(p / cell - 0.5) - 0.5) / fwidth(p / cell);\n"
    "  return 1.0 - min(min(g.x, g.y), 1.0);\n"
    "}\n"
    "void main() {\n"
    "  vec2 p = v_world.xz;\n"
    "  vec3 ground = vec3(0.78, 0.78, 0.76);\n"
    "  vec3 c = mix(ground, vec3(0.55, 0.56, 0.56), lines(p, 0.5) * 0.6);\n"
    "  c = mix(c, vec3(0.38, 0.40, 0.42), lines(p, 2.0));\n"
    "  float fade = smoothstep(0.55, 1.0, length(p - u_center.xz) / u_extent);\n"
    "  o_color = vec4(pow(mix(c, u_bg, fade), vec3(1.0 / 2.2)), 1.0);\n"
    "}\n";

static const char *TERRAIN_VS =
    "#version 330 core\n"
    "layout(location=0) in vec3 a_pos;\n"
    "layout(location=1) in vec3 a_nrm;\n"
    "uniform mat4 u_viewproj;\n"
    "out vec3 v_world; out vec3 v_nrm;\n"
    "void main() { v_world = a_pos; v_nrm = a_nrm; gl_Position = u_viewproj * vec4(a_pos, 1.0); }\n";

/* Lit like the meshes; grid lines every 0.5 m and 2 m along x and z, each
 * family faded where the surface faces its axis (a riser facing +Z shows the
 * x lines only), so slopes and steps read. */
static const char *TERRAIN_FS =
    "#version 330 core\n"
    "in vec3 v_world; in vec3 v_nrm;\n"
    "uniform vec3 u_eye, u_bg; uniform vec2 u_center; uniform float u_fade;\n"
    "out vec4 o_color;\n"
    "float lines(float p, float cell) {\n"
    "  float w = max(fwidth(p / cell), 1e-4);\n"
    "  return 1.0 - min(abs(fract(p / cell - 0.5) - 0.5) / w, 1.0);\n"
    "}\n"
    "void main() {\n"
    "  vec3 n = normalize(v_nrm);\n"
    "  vec3 V = normalize(u_eye - v_world);\n"
    "  if (dot(n, V) < 0.0) n = -n;\n"
    "  vec3 g = normalize(cross(dFdx(v_world), dFdy(v_world)));\n"
    "  float lx = lines(v_world.x, 0.5) * (1.0 - abs(g.x)), lz = lines(v_world.z, 0.5) * (1.0 - abs(g.z));\n"
    "  float Lx = lines(v_world.x, 2.0) * (1.0 - abs(g.x)), Lz = lines(v_world.z, 2.0) * (1.0 - abs(g.z));\n"
    "  vec3 base = vec3(0.36, 0.31, 0.24);\n"
    "  base = mix(base, vec3(0.13, 0.12, 0.10), max(lx, lz) * 0.8);\n"
    "  base = mix(base, vec3(0.04, 0.04, 0.05), max(Lx, Lz));\n"
    "  vec3 L = normalize(vec3(0.45, 0.8, 0.55));\n"
    "  float d = max(dot(n, L), 0.0);\n"
    "  vec3 hemi = mix(vec3(0.30, 0.28, 0.26), vec3(0.55, 0.62, 0.75), n.y * 0.5 + 0.5);\n"
    "  vec3 c = base * (0.6 * hemi + 0.9 * d);\n"
    "  float fade = u_fade > 0.0 ? smoothstep(0.55, 1.0, length(v_world.xz - u_center) / u_fade) : 0.0;\n"
    "  o_color = vec4(pow(clamp(mix(c, u_bg, fade), 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);\n"
    "}\n";

static const char *LINE_VS =
    "#version 330 core\n"
    "layout(location=0) in vec3 a_pos;\n"
    "uniform mat4 u_viewproj; uniform float u_point;\n"
    "void main() { gl_Position = u_viewproj * vec4(a_pos, 1.0); gl_PointSize = u_point; }\n";
static const char *LINE_FS =
    "#version 330 core\n"
    "uniform vec3 u_rgb; out vec4 o_color;\n"
    "void main() { o_color = vec4(u_rgb, 1.0); }\n";

static GLuint compile(GLenum type, const char *src, sk_error *err) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[400];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        sk_error_set(err, SK_ERR_UNSUPPORTED, "shader compile failed: %s", log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

unsigned skr_gl_program(const char *vs, const char *gs, const char *fs, sk_error *err) {
    GLuint st[3] = {compile(GL_VERTEX_SHADER, vs, err), gs ? compile(GL_GEOMETRY_SHADER, gs, err) : 0,
                    compile(GL_FRAGMENT_SHADER, fs, err)};
    GLuint p = 0;
    if (st[0] && st[2] && (!gs || st[1])) {
        p = glCreateProgram();
        for (int i = 0; i < 3; i++)
            if (st[i]) glAttachShader(p, st[i]);
        glLinkProgram(p);
        GLint ok = 0;
        glGetProgramiv(p, GL_LINK_STATUS, &ok);
        if (!ok) {
            char log[400];
            glGetProgramInfoLog(p, sizeof log, NULL, log);
            sk_error_set(err, SK_ERR_UNSUPPORTED, "shader link failed: %s", log);
            glDeleteProgram(p);
            p = 0;
        }
    }
    for (int i = 0; i < 3; i++)
        if (st[i]) glDeleteShader(st[i]);
    return p;
}

struct skr_renderer {
    GLuint mesh_prog, grid_prog, line_prog, terrain_prog;
    GLuint grid_vao, grid_vbo, line_vao, line_vbo;
    GLuint pal_buf, pal_tex, tint_buf, tint_tex;
    GLuint cpu_buf;
    size_t pal_cap, tint_cap, cpu_cap, line_cap;
    const skr_camera *cam;
    GLint u_skin, u_base, u_stride, u_instance0, u_has_tints, u_viewproj, u_point_size, u_color, u_flat, u_has_tex,
        u_eye;
};

sk_result skr_renderer_create(skr_renderer **out, sk_error *err) {
    skr_renderer *r = calloc(1, sizeof *r);
    if (!r) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    if (epoxy_gl_version() < 33) {
        free(r);
        return sk_error_set(err, SK_ERR_UNSUPPORTED, "OpenGL 3.3 is required (the context has %d.%d)",
                            epoxy_gl_version() / 10, epoxy_gl_version() % 10);
    }
    r->mesh_prog = skr_gl_program(MESH_VS, NULL, MESH_FS, err);
    r->grid_prog = r->mesh_prog ? skr_gl_program(GRID_VS, NULL, GRID_FS, err) : 0;
    r->line_prog = r->grid_prog ? skr_gl_program(LINE_VS, NULL, LINE_FS, err) : 0;
    r->terrain_prog = r->line_prog ? skr_gl_program(TERRAIN_VS, NULL, TERRAIN_FS, err) : 0;
    if (!r->terrain_prog) {
        skr_renderer_destroy(r);
        return err ? err->code : SK_ERR_UNSUPPORTED;
    }
    GLuint p = r->mesh_prog;
    r->u_skin = glGetUniformLocation(p, "u_skin");
    r->u_base = glGetUniformLocation(p, "u_base");
    r->u_stride = glGetUniformLocation(p, "u_stride");
    r->u_instance0 = glGetUniformLocation(p, "u_instance0");
    r->u_has_tints = glGetUniformLocation(p, "u_has_tints");
    r->u_viewproj = glGetUniformLocation(p, "u_viewproj");
    r->u_point_size = glGetUniformLocation(p, "u_point_size");
    r->u_color = glGetUniformLocation(p, "u_color");
    r->u_flat = glGetUniformLocation(p, "u_flat");
    r->u_has_tex = glGetUniformLocation(p, "u_has_tex");
    r->u_eye = glGetUniformLocation(p, "u_eye");
    glUseProgram(p);
    glUniform1i(glGetUniformLocation(p, "u_palette"), 0);
    glUniform1i(glGetUniformLocation(p, "u_tints"), 1);
    glUniform1i(glGetUniformLocation(p, "u_tex"), 2);
    glGenBuffers(1, &r->pal_buf);
    glGenBuffers(1, &r->tint_buf);
    glGenBuffers(1, &r->cpu_buf);
    glGenTextures(1, &r->pal_tex);
    glGenTextures(1, &r->tint_tex);
    static const float quad[] = {-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1};
    glGenVertexArrays(1, &r->grid_vao);
    glGenBuffers(1, &r->grid_vbo);
    glBindVertexArray(r->grid_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->grid_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glGenVertexArrays(1, &r->line_vao);
    glGenBuffers(1, &r->line_vbo);
    glBindVertexArray(r->line_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->line_vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    glBindVertexArray(0);
    *out = r;
    return SK_OK;
}

void skr_renderer_destroy(skr_renderer *r) {
    if (!r) return;
    glDeleteProgram(r->mesh_prog);
    glDeleteProgram(r->grid_prog);
    glDeleteProgram(r->line_prog);
    glDeleteProgram(r->terrain_prog);
    GLuint bufs[6] = {r->grid_vbo, r->line_vbo, r->pal_buf, r->tint_buf, r->cpu_buf, 0};
    glDeleteBuffers(5, bufs);
    GLuint vaos[2] = {r->grid_vao, r->line_vao};
    glDeleteVertexArrays(2, vaos);
    GLuint tex[2] = {r->pal_tex, r->tint_tex};
    glDeleteTextures(2, tex);
    free(r);
}

void skr_begin_frame(skr_renderer *r, const skr_frame_desc *f) {
    r->cam = f->camera;
    glClearColor(f->background[0], f->background[1], f->background[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_CULL_FACE);
    if (f->grid) {
        glUseProgram(r->grid_prog);
        float ext = f->grid_extent > 0 ? f->grid_extent : 30.0f;
        float bg[3];
        for (int i = 0; i < 3; i++) bg[i] = powf(f->background[i], 2.2f); /* shader re-applies gamma */
        glUniformMatrix4fv(glGetUniformLocation(r->grid_prog, "u_viewproj"), 1, GL_FALSE, f->camera->viewproj.m);
        glUniform3f(glGetUniformLocation(r->grid_prog, "u_center"), f->camera->target[0], 0, f->camera->target[2]);
        glUniform1f(glGetUniformLocation(r->grid_prog, "u_extent"), ext);
        glUniform1f(glGetUniformLocation(r->grid_prog, "u_y"), f->ground_y);
        glUniform2f(glGetUniformLocation(r->grid_prog, "u_slope"), f->ground_slope[0], f->ground_slope[1]);
        glUniform3fv(glGetUniformLocation(r->grid_prog, "u_bg"), 1, bg);
        glBindVertexArray(r->grid_vao);
        /* Slightly behind coplanar geometry (feet on the ground). */
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(1.0f, 1.0f);
        glDrawArrays(GL_TRIANGLES, 0, 6);
        glDisable(GL_POLYGON_OFFSET_FILL);
    }
}

static void upload(GLuint buf, size_t *cap, GLenum target, const void *data, size_t bytes) {
    glBindBuffer(target, buf);
    if (bytes > *cap) {
        *cap = bytes + bytes / 2;
        glBufferData(target, (GLsizeiptr)*cap, NULL, GL_STREAM_DRAW);
    } else {
        glBufferData(target, (GLsizeiptr)*cap, NULL, GL_STREAM_DRAW); /* orphan */
    }
    glBufferSubData(target, 0, (GLsizeiptr)bytes, data);
}

static void bind_tbo(GLuint unit, GLuint tex, GLuint buf) {
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_BUFFER, tex);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, buf);
}

static void set_common(skr_renderer *r) {
    glUseProgram(r->mesh_prog);
    glUniformMatrix4fv(r->u_viewproj, 1, GL_FALSE, r->cam->viewproj.m);
    glUniform3fv(r->u_eye, 1, r->cam->eye);
    glUniform4f(r->u_flat, 0, 0, 0, 0);
    glUniform1f(r->u_point_size, 1.0f);
}

static void bind_item_material(skr_renderer *r, const skr_item *it) {
    glUniform4fv(r->u_color, 1, it->base_color);
    glUniform1i(r->u_has_tex, it->texture ? 1 : 0);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, it->texture);
}

void skr_draw_model(skr_renderer *r, const skr_draw_desc *d) {
    const skr_model *m = d->model;
    if (!d->instance_count) return;
    set_common(r);
    if (d->tints) {
        upload(r->tint_buf, &r->tint_cap, GL_TEXTURE_BUFFER, d->tints, (size_t)d->instance_count * 16);
        bind_tbo(1, r->tint_tex, r->tint_buf);
    }
    glUniform1i(r->u_has_tints, d->tints ? 1 : 0);
    if (!d->cpu_vertices) {
        upload(r->pal_buf, &r->pal_cap, GL_TEXTURE_BUFFER, d->palettes,
               (size_t)d->instance_count * m->palette_size * sizeof(sk_mat4));
        bind_tbo(0, r->pal_tex, r->pal_buf);
        glUniform1i(r->u_skin, 1);
        glUniform1i(r->u_stride, (GLint)m->palette_size);
        glUniform1i(r->u_instance0, 0);
        for (uint32_t i = 0; i < m->item_count; i++) {
            const skr_item *it = &m->items[i];
            bind_item_material(r, it);
            glUniform1i(r->u_base, (GLint)it->palette_offset);
            glBindVertexArray(it->vao);
            glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)it->index_count, GL_UNSIGNED_INT, NULL,
                                    (GLsizei)d->instance_count);
        }
    } else {
        size_t per = (size_t)m->vertex_count * 6 * sizeof(float);
        upload(r->cpu_buf, &r->cpu_cap, GL_ARRAY_BUFFER, d->cpu_vertices, per * d->instance_count);
        glUniform1i(r->u_skin, 0);
        for (uint32_t i = 0; i < m->item_count; i++) {
            const skr_item *it = &m->items[i];
            bind_item_material(r, it);
            glBindVertexArray(it->cpu_vao);
            glBindBuffer(GL_ARRAY_BUFFER, r->cpu_buf);
            for (uint32_t k = 0; k < d->instance_count; k++) {
                size_t off = per * k + (size_t)it->cpu_first * 6 * sizeof(float);
                glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 24, (const void *)off);
                glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 24, (const void *)(off + 12));
                glUniform1i(r->u_instance0, (GLint)k);
                glDrawElements(GL_TRIANGLES, (GLsizei)it->index_count, GL_UNSIGNED_INT, NULL);
            }
        }
    }
    glBindVertexArray(0);
}

void skr_draw_markers(skr_renderer *r, const skr_model *m, const sk_mat4 *palette, const uint32_t *vertices,
                      uint32_t count, const unsigned char (*rgb)[3], float px) {
    if (!m->item_count) return;
    set_common(r);
    upload(r->pal_buf, &r->pal_cap, GL_TEXTURE_BUFFER, palette, m->palette_size * sizeof(sk_mat4));
    bind_tbo(0, r->pal_tex, r->pal_buf);
    glUniform1i(r->u_skin, 1);
    glUniform1i(r->u_stride, (GLint)m->palette_size);
    glUniform1i(r->u_instance0, 0);
    glUniform1i(r->u_has_tints, 0);
    glUniform1f(r->u_point_size, px);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glDisable(GL_DEPTH_TEST);
    const skr_item *it = &m->items[0];
    glUniform1i(r->u_base, (GLint)it->palette_offset);
    glBindVertexArray(it->vao);
    for (uint32_t i = 0; i < count; i++) {
        if (vertices[i] >= it->vertex_count) continue;
        glUniform4f(r->u_flat, rgb[i][0] / 255.0f, rgb[i][1] / 255.0f, rgb[i][2] / 255.0f, 1.0f);
        glDrawArrays(GL_POINTS, (GLint)vertices[i], 1);
    }
    glBindVertexArray(0);
    glEnable(GL_DEPTH_TEST);
}

void skr_draw_target(skr_renderer *r, const float p[3], float size, const float rgb[3]) {
    float v[21];
    for (int a = 0; a < 3; a++) { /* three axis-aligned segments through p, then p itself */
        for (int e = 0; e < 2; e++) {
            float *q = v + (a * 2 + e) * 3;
            memcpy(q, p, 3 * sizeof(float));
            q[a] += e ? size : -size;
        }
    }
    memcpy(v + 18, p, 3 * sizeof(float));
    glUseProgram(r->line_prog);
    glUniformMatrix4fv(glGetUniformLocation(r->line_prog, "u_viewproj"), 1, GL_FALSE, r->cam->viewproj.m);
    glUniform3fv(glGetUniformLocation(r->line_prog, "u_rgb"), 1, rgb);
    glUniform1f(glGetUniformLocation(r->line_prog, "u_point"), 9.0f);
    glBindVertexArray(r->line_vao);
    upload(r->line_vbo, &r->line_cap, GL_ARRAY_BUFFER, v, sizeof v);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    glDisable(GL_DEPTH_TEST); /* always visible, also when the hand covers it */
    glDrawArrays(GL_LINES, 0, 6);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glDrawArrays(GL_POINTS, 6, 1);
    glEnable(GL_DEPTH_TEST);
    glBindVertexArray(0);
}

void skr_draw_skeleton(skr_renderer *r, const sk_skeleton *s, const sk_mat4 *world, const float rgb[3]) {
    size_t n = s->joint_count;
    float *v = malloc((n * 2 + 1) * 3 * sizeof(float));
    if (!v) return;
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        int32_t p = s->parents[j];
        if (p < 0) continue;
        memcpy(v + k * 3, &world[p].m[12], 3 * sizeof(float));
        memcpy(v + k * 3 + 3, &world[j].m[12], 3 * sizeof(float));
        k += 2;
    }
    glUseProgram(r->line_prog);
    glUniformMatrix4fv(glGetUniformLocation(r->line_prog, "u_viewproj"), 1, GL_FALSE, r->cam->viewproj.m);
    glUniform3fv(glGetUniformLocation(r->line_prog, "u_rgb"), 1, rgb);
    glUniform1f(glGetUniformLocation(r->line_prog, "u_point"), 5.0f);
    glBindVertexArray(r->line_vao);
    upload(r->line_vbo, &r->line_cap, GL_ARRAY_BUFFER, v, (k ? k : 1) * 3 * sizeof(float));
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    glDisable(GL_DEPTH_TEST);
    glDrawArrays(GL_LINES, 0, (GLsizei)k);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glDrawArrays(GL_POINTS, 0, (GLsizei)k);
    glEnable(GL_DEPTH_TEST);
    glBindVertexArray(0);
    free(v);
}

void skr_draw_terrain(skr_renderer *r, const skr_terrain *t, const float fade_center[2], float fade_radius,
                      const float background[3]) {
    if (!t->triangle_count) return;
    GLuint p = r->terrain_prog;
    glUseProgram(p);
    float bg[3];
    for (int i = 0; i < 3; i++) bg[i] = powf(background[i], 2.2f); /* the shader re-applies gamma */
    glUniformMatrix4fv(glGetUniformLocation(p, "u_viewproj"), 1, GL_FALSE, r->cam->viewproj.m);
    glUniform3fv(glGetUniformLocation(p, "u_eye"), 1, r->cam->eye);
    glUniform3fv(glGetUniformLocation(p, "u_bg"), 1, bg);
    glUniform2f(glGetUniformLocation(p, "u_center"), fade_center ? fade_center[0] : 0.0f,
                fade_center ? fade_center[1] : 0.0f);
    glUniform1f(glGetUniformLocation(p, "u_fade"), fade_radius > 0 ? fade_radius : 0.0f);
    glBindVertexArray(t->vao);
    /* Slightly behind coplanar geometry (feet on the ground). */
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.0f, 1.0f);
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(t->triangle_count * 3));
    glDisable(GL_POLYGON_OFFSET_FILL);
    glBindVertexArray(0);
}
