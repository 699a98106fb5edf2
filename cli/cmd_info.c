/* skelanim info: a readable summary of an asset. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *interp_name(sk_interpolation i) {
    switch (i) {
    case SK_INTERP_STEP: return "STEP";
    case SK_INTERP_LINEAR: return "LINEAR";
    case SK_INTERP_CUBICSPLINE: return "CUBICSPLINE";
    }
    return "?";
}

static const char *quoted(const char *s, char *buf, size_t cap) {
    if (!s || !*s) return "(unnamed)";
    snprintf(buf, cap, "\"%s\"", s);
    return buf;
}

static void print_tree(const sk_asset *a) {
    const sk_skeleton *s = a->skeleton;
    uint32_t n = s->joint_count;
    /* Children lists in joint order, then an explicit-stack depth-first print. */
    uint32_t *first = calloc((size_t)n + 1, sizeof *first), *child = calloc(n ? n : 1, sizeof *child);
    uint32_t *stack = calloc(n ? n : 1, sizeof *stack), *depth = calloc(n ? n : 1, sizeof *depth);
    if (!first || !child || !stack || !depth) goto out;
    for (uint32_t i = 0; i < n; i++)
        if (s->parents[i] >= 0) first[s->parents[i] + 1]++;
    for (uint32_t i = 0; i < n; i++) first[i + 1] += first[i];
    uint32_t *fill = stack; /* reuse as a cursor before the walk */
    for (uint32_t i = 0; i < n; i++) fill[i] = first[i];
    for (uint32_t i = 0; i < n; i++)
        if (s->parents[i] >= 0) child[fill[s->parents[i]]++] = i;
    for (uint32_t r = 0; r < n; r++) {
        if (s->parents[r] >= 0) continue;
        uint32_t sp = 0;
        stack[sp++] = r;
        depth[r] = 0;
        while (sp) {
            uint32_t j = stack[--sp];
            char nb[160];
            printf("  %*s[%u] %s", (int)(2 * (depth[j] < 40 ? depth[j] : 40)), "", a->joint_to_node[j],
                   quoted(s->names[j], nb, sizeof nb));
            if (a->joint_mesh[j] >= 0) printf("  mesh %d", a->joint_mesh[j]);
            if (a->joint_skin[j] >= 0) printf(", skin %d", a->joint_skin[j]);
            for (uint32_t k = 0; k < a->skin_count; k++)
                for (uint32_t q = 0; q < a->skins[k].joint_count; q++)
                    if (a->skins[k].joints[q] == j) {
                        printf("  (joint %u of skin %u)", q, k);
                        k = a->skin_count - 1;
                        break;
                    }
            printf("\n");
            for (uint32_t c = first[j + 1]; c > first[j]; c--) {
                uint32_t ch = child[c - 1];
                depth[ch] = depth[j] + 1;
                stack[sp++] = ch;
            }
        }
    }
out:
    free(first);
    free(child);
    free(stack);
    free(depth);
}

typedef struct info_args {
    const char *file;
    double scale;
    bool formats;
} info_args;

/* info --formats: one JSON line per reader of this build. */
static void format_line(const char *reader, const char *library, const char *exts, const char *by) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "reader", reader);
    cJSON_AddStringToObject(o, "library", library);
    cJSON *a = cJSON_AddArrayToObject(o, "extensions");
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", exts);
    for (char *t = strtok(buf, ";"); t; t = strtok(NULL, ";")) {
        while (*t == ' ') t++;
        if (t[0] == '*' && t[1] == '.') t++;
        cJSON_AddItemToArray(a, cJSON_CreateString(t));
    }
    cJSON_AddStringToObject(o, "chosen_by", by);
    cli_put_json_line(o);
}

static int info_formats(void) {
    format_line("gltf", "libskelanim_io", ".gltf;.glb", "content (the .glb magic or JSON), else the extension");
    format_line("bvh", "libskelanim_io", ".bvh", "extension");
    format_line("skc", "libskelanim_io", ".skc", "extension");
#ifdef SK_HAVE_IMPORT
    char list[2048], ver[32];
    sk_import_extensions(list, sizeof list);
    char reader[64];
    snprintf(reader, sizeof reader, "assimp %s", sk_import_assimp_version(ver, sizeof ver));
    format_line(reader, "libskelanim_import", list, "any other file (assimp chooses by extension and content)");
#else
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "reader", "assimp");
    cJSON_AddStringToObject(o, "library", "libskelanim_import");
    cJSON_AddFalseToObject(o, "built");
    cJSON_AddStringToObject(o, "how", "configure with -DSK_IMPORT=ON (Debian: libassimp-dev)");
    cli_put_json_line(o);
#endif
    return 0;
}


/* The BVH reader's note of a file's blank frames (sk_bvh_options.warning;
 * the only warning it gives): "PATH: N of M frames blank (...): RANGES; kept
 * ...", listed under the clip without the path and what the reader did. */
typedef struct blank_note {
    char text[600];
} blank_note;
static void keep_blank_note(void *user, const char *message) {
    blank_note *b = user;
    snprintf(b->text, sizeof b->text, "%s", message);
}
static void print_blank_note(const blank_note *b, const char *path) {
    size_t n = strlen(path);
    const char *t = b->text;
    if (!t[0]) return;
    if (!strncmp(t, path, n) && !strncmp(t + n, ": ", 2)) t += n + 2;
    const char *end = strstr(t, "; ");
    printf("    %.*s\n", (int)(end ? (size_t)(end - t) : strlen(t)), t);
}

static int cmd_info(int argc, char **argv) {
    info_args args = {NULL, 0.0, false};
    int rc = cli_parse(&cli_cmd_info, argc, argv, &args, NULL);
    if (rc != CLI_CONTINUE) return rc;
    if (args.formats) {
        if (args.file) {
            fprintf(stderr, "skelanim: info: --formats takes no FILE\n");
            return 1;
        }
        return info_formats();
    }
    if (!args.file) {
        fprintf(stderr, "skelanim: info: FILE is required (or --formats)\n");
        cli_help_usage(stderr, &cli_cmd_info);
        return 1;
    }
    const char *file = args.file;
    double scale = args.scale;
    sk_asset *a = NULL;
    blank_note blank = {{0}};
    if (cli_is_bvh(file)) { /* as written: blank frames kept, and listed under the clip */
        sk_bvh_options bo = {0};
        bo.scale = scale;
        bo.warning = keep_blank_note, bo.warning_user = &blank;
        sk_error err = {0};
        if (sk_bvh_load_file(file, &bo, &a, &err) != SK_OK) {
            fprintf(stderr, "skelanim: %s\n", err.message);
            return 1;
        }
    } else if (!cli_load_scaled(file, scale, &a))
        return 1;
    char nb[160];
    printf("file: %s\n", file);
    if (cli_is_bvh(file)) {
        if (scale != 0.0) printf("units: %.9g per file unit (--scale)\n", scale);
        else {
            char why[256];
            printf("units: as in the file (no --scale)\n");
            if (cli_not_metres(a, NULL, "--scale", why, sizeof why)) printf("  note: %s\n", why);
        }
    } else if (cli_is_skc(file)) {
        double mpu = 0.0;
        sk_asset *tmp = NULL;
        if (sk_skc_load_file(file, NULL, NULL, &tmp, &mpu, NULL) == SK_OK) printf("units: %.9g m per unit (recorded in the .skc)\n", mpu);
        sk_asset_destroy(tmp);
    }
    if (cli_file_format(file) == CLI_FORMAT_IMPORT)
        printf("units: as the file gives them (assimp applies no unit scale; docs/import.md)\n");
    if (a->generator && *a->generator) printf("generator: %s\n", a->generator);
    printf("scenes: %u", a->scene_count);
    if (a->default_scene >= 0) printf(" (default: %d)", a->default_scene);
    printf("\n");
    for (uint32_t i = 0; i < a->scene_count; i++) {
        printf("  scene %u %s: %u root node%s", i, quoted(a->scenes[i].name, nb, sizeof nb), a->scenes[i].root_count,
               a->scenes[i].root_count == 1 ? "" : "s");
        for (uint32_t r = 0; r < a->scenes[i].root_count && r < 16; r++)
            printf("%s%u", r ? ", " : " ", a->joint_to_node[a->scenes[i].roots[r]]);
        printf("\n");
    }
    printf("nodes: %u (tree below; [file node index])\n", a->node_count);
    print_tree(a);
    printf("skins: %u\n", a->skin_count);
    for (uint32_t i = 0; i < a->skin_count; i++) {
        const sk_skin *s = &a->skins[i];
        printf("  skin %u %s: %u joints", i, quoted(s->name, nb, sizeof nb), s->joint_count);
        if (s->skeleton_root >= 0) printf(", skeleton root node %u", a->joint_to_node[s->skeleton_root]);
        printf("\n");
    }
    printf("meshes: %u\n", a->mesh_count);
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const sk_mesh *m = &a->meshes[i];
        printf("  mesh %u %s: %u primitive%s", i, quoted(m->name, nb, sizeof nb), m->primitive_count,
               m->primitive_count == 1 ? "" : "s");
        if (m->weight_count) printf(", %u morph targets", m->weight_count);
        printf("\n");
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            const sk_primitive *pr = &m->primitives[p];
            if (pr->missing_data) {
                printf("    primitive %u: no vertex data in the file (%s)\n", p, pr->missing_data);
                continue;
            }
            printf("    primitive %u: %u vertices, ", p, pr->vertex_count);
            if (pr->indices) printf("%u indices", pr->index_count);
            else printf("not indexed");
            if (pr->mode == 4) printf(" (%u triangles)", (pr->indices ? pr->index_count : pr->vertex_count) / 3);
            else printf(" (mode %u)", pr->mode);
            printf(", %u influences/vertex", pr->influence_count);
            if (pr->normals) printf(", normals");
            if (pr->tangents) printf(", tangents");
            if (pr->texcoords) printf(", texcoords");
            if (pr->target_count) printf(", %u morph targets", pr->target_count);
            printf("\n");
        }
    }
    if (a->material_count || a->image_count) {
        printf("materials: %u, textures: %u, images: %u\n", a->material_count, a->texture_count, a->image_count);
        for (uint32_t i = 0; i < a->material_count; i++) {
            const sk_material *mt = &a->materials[i];
            printf("  material %u %s: base colour %.3g %.3g %.3g %.3g", i, quoted(mt->name, nb, sizeof nb),
                   (double)mt->base_color[0], (double)mt->base_color[1], (double)mt->base_color[2],
                   (double)mt->base_color[3]);
            int32_t t = mt->base_color_texture.texture;
            if (t >= 0 && a->textures[t].image >= 0) {
                const sk_image *im = &a->images[a->textures[t].image];
                printf(", texture %d (image %d, %s, %zu bytes%s)", t, a->textures[t].image,
                       im->mime_type[0] ? im->mime_type : "type not given", im->size, im->data ? "" : ", not loaded");
            }
            static const char *const modes[] = {"opaque", "mask", "blend"};
            printf(", %s%s\n", modes[mt->alpha_mode], mt->double_sided ? ", double-sided" : "");
        }
    }
    printf("clips: %u\n", a->clip_count);
    for (uint32_t i = 0; i < a->clip_count; i++) {
        const sk_clip *c = a->clips[i];
        uint32_t nt = sk_clip_track_count(c);
        uint32_t counts[4][3] = {{0}};
        for (uint32_t k = 0; k < nt; k++) {
            sk_track_info ti;
            if (sk_clip_track_info(c, k, &ti)) counts[ti.path][ti.interpolation]++;
        }
        printf("  clip %u %s: %.3f s, %u track%s", i, quoted(sk_clip_name(c), nb, sizeof nb),
               (double)sk_clip_duration(c), nt, nt == 1 ? "" : "s");
        static const char *paths[4] = {"translation", "rotation", "scale", "weights"};
        bool first = true;
        for (int p = 0; p < 4; p++)
            for (int ip = 0; ip < 3; ip++)
                if (counts[p][ip]) {
                    printf("%s %u %s %s", first ? ":" : ",", counts[p][ip], paths[p], interp_name((sk_interpolation)ip));
                    first = false;
                }
        const void *blob;
        size_t bytes;
        sk_track_info t0 = {0};
        if (sk_clip_compressed_data(c, &blob, &bytes))
            printf(" (compressed: %zu bytes, %u frames)", bytes, nt && sk_clip_track_info(c, 0, &t0) ? t0.key_count : 0u);
        printf("\n");
        if (cli_is_bvh(file)) print_blank_note(&blank, file);
    }
    sk_asset_destroy(a);
    return 0;
}

static const cli_opt info_opts[] = {
    CLI_OPT_SCALE(info_args, scale),
    {"--formats", CLI_FLAG(info_args, formats),
     .help = "instead of a file: what this build reads, one JSON line per reader (reader, library, extensions, how "
             "a file is matched to it)"},
};
static const cli_arg info_arg_list[] = {
    {"FILE", CLI_ARG(info_args, file), .help = CLI_FILE_HELP " (required unless --formats)"}};
const cli_command cli_cmd_info = {
    .name = "info",
    .run = cmd_info,
    .summary = "what a file holds: scenes, node tree, skins, meshes, materials, clips",
    .opts = info_opts,
    .nopts = CLI_COUNT(info_opts),
    .args = info_arg_list,
    .nargs = CLI_COUNT(info_arg_list),
};
