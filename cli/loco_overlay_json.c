/* skelanim command-line tool: the locomotion debugging view's fields in a
 * --trace line, written and read back (loco_overlay.h). Apart from the
 * drawing so that the trace reader (trace_read.h) links without GL. */
#include "loco_overlay.h"

#include <math.h>
#include <string.h>

const char *loco_overlay_mode_name(sk_locomotion_mode m) {
    return m == SK_LOCOMOTION_MOVING ? "moving" : m == SK_LOCOMOTION_STOPPING ? "stopping" : "standing";
}

/* ---- The trace's fields ---- */

static void vec(FILE *f, const char *key, sk_vec3 v) { fprintf(f, "\"%s\":[%.5f,%.5f,%.5f]", key, v.x, v.y, v.z); }

static void step_json(FILE *f, const char *key, const loco_overlay_step *s) {
    fprintf(f, "\"%s\":{", key);
    vec(f, "heel", s->heel);
    fputc(',', f);
    vec(f, "toe", s->toe);
    fputc(',', f);
    vec(f, "normal", s->normal);
    fputc('}', f);
}

void loco_overlay_write_foot(FILE *f, const loco_overlay_frame *fr, uint32_t l) {
    const loco_overlay_leg *o = &fr->legs[l];
    fprintf(f, "\"grounded\":%s,\"cycle_time\":%.5f,\"flight\":%.5f,", o->grounded ? "true" : "false",
            o->cycle_time, o->flight);
    step_json(f, "from", &o->from);
    fputc(',', f);
    step_json(f, "to", &o->to);
    fprintf(f, ",\"keys\":{\"strike\":%.5f,\"land\":%.5f,\"lift\":%.5f,\"off\":%.5f}", o->strike, o->land, o->lift,
            o->off);
}

static void json_name(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
    }
    fputc('"', f);
}

void loco_overlay_write_frame(FILE *f, const loco_overlay_frame *fr) {
    vec(f, "velocity", fr->velocity);
    fprintf(f, ",\"yaw\":%.5f,\"mode\":\"%s\",\"phase\":%.5f,\"moving\":%.5f,\"weights\":{", fr->yaw,
            loco_overlay_mode_name(fr->mode), fr->phase, fr->moving);
    for (uint32_t i = 0; i < fr->clip_count; i++) {
        if (i) fputc(',', f);
        json_name(f, fr->clip[i]);
        fprintf(f, ":%.5f", fr->weight[i]);
    }
    fputc('}', f);
}

static bool get_vec(const cJSON *o, const char *key, sk_vec3 *v) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) return false;
    float x[3];
    for (int k = 0; k < 3; k++) {
        const cJSON *e = cJSON_GetArrayItem(a, k);
        if (!cJSON_IsNumber(e) || !(fabs(e->valuedouble) < 1e6)) return false; /* finite as a float too */
        x[k] = (float)e->valuedouble;
    }
    *v = sk_vec3_make(x[0], x[1], x[2]);
    return true;
}

static bool get_num(const cJSON *o, const char *key, double *v) {
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(e) || !(fabs(e->valuedouble) < 1e9)) return false; /* finite as a float too */
    *v = e->valuedouble;
    return true;
}

static bool get_step(const cJSON *o, const char *key, loco_overlay_step *s) {
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsObject(st) && get_vec(st, "heel", &s->heel) && get_vec(st, "toe", &s->toe) &&
           get_vec(st, "normal", &s->normal);
}

static float unit(double v) { return (float)(v < 0 ? 0 : v > 1 ? 1 : v); }

bool loco_overlay_parse(const cJSON *line, loco_overlay_frame *out) {
    memset(out, 0, sizeof *out);
    double t = 0, yaw = 0, phase = 0, moving = 0;
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(line, "mode");
    const cJSON *feet = cJSON_GetObjectItemCaseSensitive(line, "feet");
    const cJSON *weights = cJSON_GetObjectItemCaseSensitive(line, "weights");
    if (!get_num(line, "t", &t) || !get_vec(line, "root", &out->root) || !get_vec(line, "velocity", &out->velocity) ||
        !get_num(line, "yaw", &yaw) || !get_num(line, "phase", &phase) || !get_num(line, "moving", &moving) ||
        !cJSON_IsString(mode) || !cJSON_IsArray(feet) || !cJSON_IsObject(weights))
        return false;
    out->t = t, out->yaw = (float)yaw, out->phase = phase, out->moving = unit(moving);
    out->mode = !strcmp(mode->valuestring, "moving")     ? SK_LOCOMOTION_MOVING
                : !strcmp(mode->valuestring, "stopping") ? SK_LOCOMOTION_STOPPING
                                                         : SK_LOCOMOTION_STANDING;
    const cJSON *w;
    cJSON_ArrayForEach(w, weights) {
        if (out->clip_count == LOCO_OVERLAY_MAX_CLIPS || !cJSON_IsNumber(w) || !w->string) break;
        snprintf(out->clip[out->clip_count], LOCO_OVERLAY_NAME, "%s", w->string);
        out->weight[out->clip_count++] = unit(w->valuedouble);
    }
    const cJSON *ft;
    cJSON_ArrayForEach(ft, feet) {
        if (out->leg_count == LOCO_OVERLAY_MAX_LEGS) break;
        loco_overlay_leg *o = &out->legs[out->leg_count];
        const cJSON *leg = cJSON_GetObjectItemCaseSensitive(ft, "leg");
        const cJSON *keys = cJSON_GetObjectItemCaseSensitive(ft, "keys");
        double ct = 0, fl = 0, k[4];
        if (!cJSON_IsString(leg) || !get_vec(ft, "heel", &o->heel) || !get_vec(ft, "toe", &o->toe) ||
            !get_num(ft, "cycle_time", &ct) || !get_num(ft, "flight", &fl) || !get_step(ft, "from", &o->from) ||
            !get_step(ft, "to", &o->to) || !cJSON_IsObject(keys) || !get_num(keys, "strike", &k[0]) ||
            !get_num(keys, "land", &k[1]) || !get_num(keys, "lift", &k[2]) || !get_num(keys, "off", &k[3]))
            return false;
        snprintf(o->name, LOCO_OVERLAY_NAME, "%s", leg->valuestring);
        o->stance = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ft, "stance"));
        o->grounded = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ft, "grounded"));
        o->cycle_time = unit(ct), o->flight = unit(fl);
        o->strike = unit(k[0]), o->land = unit(k[1]), o->lift = unit(k[2]), o->off = unit(k[3]);
        out->leg_count++;
    }
    return out->leg_count > 0;
}
