/* Engine integration in plain OpenGL: load a skinned glTF character (or the
 * built-in mannequin), sample a clip, build the skinning palette and upload it
 * as a uniform array of mat4 — the simplest way a renderer consumes it — then
 * skin in the vertex shader. Renders one frame off-screen (EGL surfaceless, no
 * display needed) and writes it as a binary PPM.
 *
 *   example_gl_palette [FILE.glb|@mannequin] [TIME] [OUT.ppm]
 *
 * The palette is column-major like GLSL, so it is uploaded with
 * transpose = GL_FALSE. See docs/rendering.md. */
#include <skelanim.h>

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_JOINTS 128 /* uniform array size: 512 vec4s, within GL 3.3's guaranteed 1024 */
#define W 256
#define H 256

static const char *VS =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "layout(location = 1) in vec4 a_joints;\n"
    "layout(location = 2) in vec4 a_weights;\n"
    "uniform mat4 u_palette[" "128" "];\n"
    "uniform mat4 u_viewproj;\n"
    "void main() {\n"
    "  mat4 skin = a_weights.x * u_palette[int(a_joints.x)] + a_weights.y * u_palette[int(a_joints.y)]\n"
    "            + a_weights.z * u_palette[int(a_joints.z)] + a_weights.w * u_palette[int(a_joints.w)];\n"
    "  gl_Position = u_viewproj * (skin * vec4(a_pos, 1.0));\n"
    "}\n";
static const char *FS = "#version 330 core\nout vec4 o;\nvoid main() { o = vec4(1.0, 0.6, 0.2, 1.0); }\n";

static GLuint shader(GLenum type, const char *src) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "shader: %s\n", log);
        exit(1);
    }
    return s;
}

int main(int argc, char **argv) {
    const char *file = argc > 1 && strcmp(argv[1], "@mannequin") != 0 ? argv[1] : NULL;
    double time = argc > 2 ? atof(argv[2]) : 0.3;
    const char *out = argc > 3 ? argv[3] : "gl_palette.ppm";

    /* 1. The character. */
    sk_asset *asset = NULL;
    sk_error err = {0};
    if ((file ? sk_gltf_load_file(file, NULL, &asset, &err) : sk_mannequin_create(NULL, NULL, &asset, &err)) != SK_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const sk_skeleton *skel = asset->skeleton;
    int32_t node = -1; /* the first joint holding a skinned mesh */
    for (uint32_t j = 0; j < skel->joint_count && node < 0; j++)
        if (asset->joint_mesh[j] >= 0 && asset->joint_skin[j] >= 0) node = (int32_t)j;
    if (node < 0) {
        fprintf(stderr, "no skinned mesh\n");
        return 1;
    }
    const sk_skin *skin = &asset->skins[asset->joint_skin[node]];
    const sk_primitive *prim = &asset->meshes[asset->joint_mesh[node]].primitives[0];
    if (skin->joint_count > MAX_JOINTS || prim->influence_count < 4 || !prim->indices) {
        fprintf(stderr, "this example handles up to %d joints, 4 influences, indexed triangles\n", MAX_JOINTS);
        return 1;
    }

    /* 2. Pose -> model matrices -> palette (caller-owned buffers, no allocation per frame). */
    sk_transform *local = malloc(skel->joint_count * sizeof *local);
    sk_mat4 *model = malloc(skel->joint_count * sizeof *model);
    float *weights = malloc((skel->weight_total + 1) * sizeof *weights);
    sk_mat4 palette[MAX_JOINTS];
    if (asset->clip_count) sk_clip_sample(asset->clips[0], skel, time, SK_LOOP_REPEAT, SK_POSE_OF(skel, local, weights), NULL);
    else sk_pose_rest(skel, SK_POSE_OF(skel, local, weights), NULL);
    sk_local_to_model(skel, SK_POSE_OF(skel, local, NULL), NULL, model, (skel)->joint_count, NULL);
    sk_skin_palette(skin, model, skel->joint_count, palette, MAX_JOINTS, NULL); /* palette[i] = model[joint i] * inverse_bind[i], scene space */

    /* 3. An off-screen GL 3.3 core context. */
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display = (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay dpy = get_display ? get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL) : EGL_NO_DISPLAY;
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL) || !eglBindAPI(EGL_OPENGL_API)) {
        fprintf(stderr, "no surfaceless EGL display (Mesa's libegl-mesa0 and libgl1-mesa-dri are needed)\n");
        return 1;
    }
    const EGLint cattr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, cattr);
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "cannot create a GL 3.3 core context\n");
        return 1;
    }
    GLuint fbo, rb[2];
    glGenFramebuffers(1, &fbo);
    glGenRenderbuffers(2, rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, W, H);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);

    /* 4. Mesh data: bind-pose positions, joints (as floats), weights. */
    uint32_t nv = prim->vertex_count;
    float *jf = malloc((size_t)nv * 4 * sizeof *jf);
    for (size_t i = 0; i < (size_t)nv * 4; i++) jf[i] = prim->joints[i];
    GLuint vao, vbo[4];
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(4, vbo);
    const void *data[3] = {prim->positions, jf, prim->weights};
    const int comps[3] = {3, 4, 4};
    for (int a = 0; a < 3; a++) {
        glBindBuffer(GL_ARRAY_BUFFER, vbo[a]);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)nv * comps[a] * 4, data[a], GL_STATIC_DRAW);
        glVertexAttribPointer((GLuint)a, comps[a], GL_FLOAT, GL_FALSE, 0, NULL);
        glEnableVertexAttribArray((GLuint)a);
    }
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, vbo[3]);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)prim->index_count * 4, prim->indices, GL_STATIC_DRAW);
    GLuint prog = glCreateProgram();
    glAttachShader(prog, shader(GL_VERTEX_SHADER, VS));
    glAttachShader(prog, shader(GL_FRAGMENT_SHADER, FS));
    glLinkProgram(prog);
    glUseProgram(prog);

    /* 5. Upload the palette: column-major, so transpose = GL_FALSE. */
    glUniformMatrix4fv(glGetUniformLocation(prog, "u_palette"), (GLsizei)skin->joint_count, GL_FALSE, palette[0].m);
    /* A camera framing the skinned bounds (CPU reference for one vertex set). */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < nv; v++) {
        sk_vec3 p;
        if (!sk_primitive_vertex_position(prim, v, NULL, palette, skin->joint_count, NULL, &p)) continue;
        const float q[3] = {p.x, p.y, p.z};
        for (int k = 0; k < 3; k++) lo[k] = fminf(lo[k], q[k]), hi[k] = fmaxf(hi[k], q[k]);
    }
    float cx = (lo[0] + hi[0]) / 2, cy = (lo[1] + hi[1]) / 2, ext = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    sk_mat4 vp = sk_mat4_identity(); /* orthographic, looking down -Z */
    vp.m[0] = 1.8f / ext, vp.m[5] = 1.8f / ext, vp.m[10] = -1.0f / ext;
    vp.m[12] = -cx * vp.m[0], vp.m[13] = -cy * vp.m[5];
    glUniformMatrix4fv(glGetUniformLocation(prog, "u_viewproj"), 1, GL_FALSE, vp.m);

    glViewport(0, 0, W, H);
    glClearColor(0.1f, 0.1f, 0.12f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDrawElements(GL_TRIANGLES, (GLsizei)prim->index_count, GL_UNSIGNED_INT, NULL);
    static unsigned char px[W * H * 4];
    glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
    long covered = 0;
    int bx0 = W, by0 = H, bx1 = -1, by1 = -1; /* covered pixels' box (rows bottom-up, as GL reads them) */
    for (int i = 0; i < W * H; i++)
        if (px[4 * i] > 128) {
            covered++;
            int x = i % W, y = i / W;
            bx0 = x < bx0 ? x : bx0, bx1 = x > bx1 ? x : bx1, by0 = y < by0 ? y : by0, by1 = y > by1 ? y : by1;
        }
    /* The same box from the CPU: the skinned bounds through the same projection. */
    float ex0 = ((lo[0] * vp.m[0] + vp.m[12]) * 0.5f + 0.5f) * W, ex1 = ((hi[0] * vp.m[0] + vp.m[12]) * 0.5f + 0.5f) * W;
    float ey0 = ((lo[1] * vp.m[5] + vp.m[13]) * 0.5f + 0.5f) * H, ey1 = ((hi[1] * vp.m[5] + vp.m[13]) * 0.5f + 0.5f) * H;
    float off = fmaxf(fmaxf(fabsf(bx0 - ex0), fabsf(bx1 + 1 - ex1)), fmaxf(fabsf(by0 - ey0), fabsf(by1 + 1 - ey1)));
    printf("GPU silhouette vs CPU-skinned bounds: %.2f px apart\n", (double)off);
    FILE *f = fopen(out, "wb");
    if (f) {
        fprintf(f, "P6\n%d %d\n255\n", W, H);
        for (int y = H - 1; y >= 0; y--)
            for (int x = 0; x < W; x++) fwrite(&px[4 * (y * W + x)], 1, 3, f);
        fclose(f);
    }
    printf("skinned %u vertices with a %u-joint palette on the GPU; %ld of %d pixels covered; wrote %s\n", nv,
           skin->joint_count, covered, W * H, out);

    glDeleteProgram(prog);
    glDeleteBuffers(4, vbo);
    glDeleteVertexArrays(1, &vao);
    glDeleteRenderbuffers(2, rb);
    glDeleteFramebuffers(1, &fbo);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    eglReleaseThread();
    free(jf), free(local), free(model), free(weights);
    sk_asset_destroy(asset);
    return covered > 0 && off <= 2.0f ? 0 : 1;
}
