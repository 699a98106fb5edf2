/* skelanim command-line tool: a locomote --trace file read back (trace_read.h). */
#include "trace_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void trace_free(trace *tr) {
    free(tr->t), free(tr->root), free(tr->pos), free(tr->ov), free(tr->has_ov), free(tr->parents);
    free(tr->terrain), free(tr->feet);
    memset(tr, 0, sizeof *tr);
}

static bool vec3_of(const cJSON *a, sk_vec3 *v) {
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) return false;
    float x[3];
    for (int k = 0; k < 3; k++) {
        const cJSON *e = cJSON_GetArrayItem(a, k);
        if (!cJSON_IsNumber(e) || !(fabs(e->valuedouble) < 1e6)) return false;
        x[k] = (float)e->valuedouble;
    }
    *v = sk_vec3_make(x[0], x[1], x[2]);
    return true;
}

/* The first line's extras: parents, path, terrain (each optional). */
static bool header(trace *tr, const cJSON *line, const char *file) {
    const cJSON *par = cJSON_GetObjectItemCaseSensitive(line, "parents");
    if (cJSON_IsArray(par)) {
        if ((uint32_t)cJSON_GetArraySize(par) != tr->joints || !(tr->parents = malloc(tr->joints * sizeof(int32_t)))) {
            fprintf(stderr, "skelanim: view: %s: line 1: \"parents\" does not match the %u joints\n", file, tr->joints);
            return false;
        }
        uint32_t j = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, par) {
            double v = cJSON_IsNumber(p) ? p->valuedouble : -2;
            if (!(v >= -1 && v < j) || v != floor(v)) {
                fprintf(stderr, "skelanim: view: %s: line 1: parents[%u] is not an earlier joint or -1\n", file, j);
                return false;
            }
            tr->parents[j++] = (int32_t)v;
        }
    }
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(line, "path"), *pt;
    cJSON_ArrayForEach(pt, path) {
        const cJSON *x = cJSON_GetArrayItem(pt, 0), *z = cJSON_GetArrayItem(pt, 1);
        if (tr->path_n == SK_PATH_MAX_POINTS || !cJSON_IsNumber(x) || !cJSON_IsNumber(z) ||
            !(fabs(x->valuedouble) < 1e5 && fabs(z->valuedouble) < 1e5))
            break;
        tr->path[2 * tr->path_n] = (float)x->valuedouble, tr->path[2 * tr->path_n + 1] = (float)z->valuedouble;
        tr->path_n++;
    }
    const cJSON *ter = cJSON_GetObjectItemCaseSensitive(line, "terrain");
    if (cJSON_IsString(ter) && ter->valuestring[0] && !(tr->terrain = strdup(ter->valuestring))) return false;
    return true;
}

static bool grow(trace *tr) {
    if (tr->n < tr->cap) return true;
    uint32_t cap = tr->cap ? 2 * tr->cap : 256;
    double *t = realloc(tr->t, cap * sizeof *t);
    if (t) tr->t = t;
    sk_vec3 *root = realloc(tr->root, cap * sizeof *root);
    if (root) tr->root = root;
    float *pos = realloc(tr->pos, (size_t)cap * tr->joints * 3 * sizeof *pos);
    if (pos) tr->pos = pos;
    loco_overlay_frame *ov = realloc(tr->ov, cap * sizeof *ov);
    if (ov) tr->ov = ov;
    bool *has = realloc(tr->has_ov, cap * sizeof *has);
    if (has) tr->has_ov = has;
    sk_vec3 *feet = realloc(tr->feet, (size_t)cap * (tr->legs ? tr->legs : 1) * 3 * sizeof *feet);
    if (feet) tr->feet = feet;
    if (!t || !root || !pos || !ov || !has || !feet) return false;
    tr->cap = cap;
    return true;
}

static bool add_line(trace *tr, const cJSON *line, uint32_t no, const char *file) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(line, "t"), *joints = cJSON_GetObjectItemCaseSensitive(line, "joints");
    const cJSON *feet = cJSON_GetObjectItemCaseSensitive(line, "feet");
    sk_vec3 root;
    if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || !vec3_of(cJSON_GetObjectItemCaseSensitive(line, "root"), &root) ||
        !cJSON_IsObject(joints) || !cJSON_IsArray(feet)) {
        fprintf(stderr, "skelanim: view: %s: line %u: not a locomote --trace line (\"t\", \"root\", \"feet\", \"joints\")\n",
                file, no);
        return false;
    }
    uint32_t J = (uint32_t)cJSON_GetArraySize(joints), legs = (uint32_t)cJSON_GetArraySize(feet);
    if (tr->n == 0) tr->joints = J, tr->legs = legs;
    if (J != tr->joints || J > TRACE_MAX_JOINTS || legs != tr->legs || legs > LOCO_OVERLAY_MAX_LEGS) {
        fprintf(stderr, "skelanim: view: %s: line %u: %u joints and %u feet (the first line: %u and %u; at most %u and %u)\n",
                file, no, J, legs, tr->joints, tr->legs, TRACE_MAX_JOINTS, LOCO_OVERLAY_MAX_LEGS);
        return false;
    }
    if (tr->n > 0 && !(t->valuedouble > tr->t[tr->n - 1])) {
        fprintf(stderr, "skelanim: view: %s: line %u: the time %g does not follow %g\n", file, no, t->valuedouble,
                tr->t[tr->n - 1]);
        return false;
    }
    if (!grow(tr)) {
        fprintf(stderr, "skelanim: view: %s: out of memory\n", file);
        return false;
    }
    float *p = tr->pos + (size_t)tr->n * J * 3;
    const cJSON *jv;
    cJSON_ArrayForEach(jv, joints) {
        sk_vec3 v;
        if (!vec3_of(jv, &v)) {
            fprintf(stderr, "skelanim: view: %s: line %u: joint \"%s\" is not [x, y, z]\n", file, no,
                    jv->string ? jv->string : "?");
            return false;
        }
        *p++ = v.x, *p++ = v.y, *p++ = v.z;
    }
    sk_vec3 *fv = tr->feet + (size_t)tr->n * legs * 3;
    const cJSON *ft;
    cJSON_ArrayForEach(ft, feet) {
        if (!vec3_of(cJSON_GetObjectItemCaseSensitive(ft, "heel"), fv) ||
            !vec3_of(cJSON_GetObjectItemCaseSensitive(ft, "ankle"), fv + 1) ||
            !vec3_of(cJSON_GetObjectItemCaseSensitive(ft, "toe"), fv + 2)) {
            fprintf(stderr, "skelanim: view: %s: line %u: a foot without \"heel\", \"ankle\" and \"toe\"\n", file, no);
            return false;
        }
        fv += 3;
    }
    tr->t[tr->n] = t->valuedouble;
    tr->root[tr->n] = root;
    tr->has_ov[tr->n] = loco_overlay_parse(line, &tr->ov[tr->n]);
    if (tr->n == 0 && !header(tr, line, file)) return false;
    tr->n++;
    return true;
}

bool trace_read(FILE *f, const char *file, trace *tr) {
    memset(tr, 0, sizeof *tr);
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    uint32_t no = 0;
    bool ok = true;
    while (ok && (len = getline(&buf, &cap, f)) >= 0) {
        no++;
        if (strspn(buf, " \t\r\n") == (size_t)len) continue;
        if (no > TRACE_MAX_LINES) {
            fprintf(stderr, "skelanim: view: %s: more than %u lines\n", file, TRACE_MAX_LINES);
            ok = false;
            break;
        }
        cJSON *line = cJSON_ParseWithLength(buf, (size_t)len);
        if (!cJSON_IsObject(line)) {
            fprintf(stderr, "skelanim: view: %s: line %u: not a JSON object\n", file, no);
            ok = false;
        } else {
            ok = add_line(tr, line, no, file);
        }
        cJSON_Delete(line);
    }
    free(buf);
    if (ok && tr->n == 0) {
        fprintf(stderr, "skelanim: view: %s: no trace lines\n", file);
        ok = false;
    }
    if (!ok) trace_free(tr);
    return ok;
}
