/* skelanim command-line tool: the locomotion debugging view's 2D HUD, drawn
 * with cairo into a premultiplied BGRA buffer (loco_overlay.h). */
#include "loco_overlay.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PAD 6
#define HEAD_H 17    /* mode and speed */
#define LEG_H 18     /* one cycle strip */
#define AXIS_H 10    /* the strips' 0 .. 1 labels */
#define CLIP_H 14    /* one weight bar */
#define NAME_W 42    /* the labels' column */
#define STRIP_X (PAD + NAME_W)
#define STRIP_W (LOCO_HUD_W - STRIP_X - 22)

int loco_overlay_hud_height(const loco_overlay_frame *f, loco_overlay_toggles t) {
    if (!f || (!t.keytimes && !t.weights)) return 0;
    int h = 2 * PAD;
    if (t.weights) h += HEAD_H + (int)(f->clip_count + 1) * CLIP_H;
    if (t.keytimes) h += (int)f->leg_count * LEG_H + AXIS_H;
    return h;
}

static void text(cairo_t *cr, double x, double y, double size, bool bold, const char *s) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

static void text_right(cairo_t *cr, double x, double y, double size, const char *s) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - e.x_advance, y);
    cairo_show_text(cr, s);
}

/* The span a..b of the cycle (b < a wraps through 1 = 0) as a bar. */
static void span(cairo_t *cr, double a, double b, double y, double h) {
    if (b >= a) {
        cairo_rectangle(cr, STRIP_X + a * STRIP_W, y, (b - a) * STRIP_W, h);
    } else {
        cairo_rectangle(cr, STRIP_X + a * STRIP_W, y, (1 - a) * STRIP_W, h);
        cairo_rectangle(cr, STRIP_X, y, b * STRIP_W, h);
    }
    cairo_fill(cr);
}

static void tick(cairo_t *cr, double u, double y, double h) {
    double x = floor(STRIP_X + u * STRIP_W) + 0.5;
    cairo_move_to(cr, x, y - 2);
    cairo_line_to(cr, x, y + h + 2);
    cairo_stroke(cr);
}

static void strip(cairo_t *cr, const loco_overlay_leg *o, uint32_t l, double y) {
    float rgb[3];
    loco_overlay_leg_rgb(l, rgb);
    double h = 9, top = y + 4;
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    text(cr, PAD, y + 12, 9.5, false, o->name);
    cairo_set_source_rgb(cr, 0.32, 0.33, 0.36);
    cairo_rectangle(cr, STRIP_X, top, STRIP_W, h);
    cairo_fill(cr);
    /* On the ground (strike .. off: lift side after stance, strike side before). */
    cairo_set_source_rgb(cr, rgb[0] * 0.45 + 0.55 * 0.75, rgb[1] * 0.45 + 0.55 * 0.75, rgb[2] * 0.45 + 0.55 * 0.75);
    span(cr, o->strike, o->off, top, h);
    /* Planted (land .. lift). */
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    span(cr, o->land, o->lift, top, h);
    cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
    cairo_set_line_width(cr, 1);
    tick(cr, o->strike, top, h);
    tick(cr, o->off, top, h);
    /* The cursor. */
    double x = STRIP_X + o->cycle_time * STRIP_W;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, 2);
    cairo_move_to(cr, x, top - 3);
    cairo_line_to(cr, x, top + h + 3);
    cairo_stroke(cr);
    cairo_move_to(cr, x - 4, top - 4);
    cairo_line_to(cr, x + 4, top - 4);
    cairo_line_to(cr, x, top + 1);
    cairo_close_path(cr);
    cairo_fill(cr);
    /* The foot's state, as the ring in the scene. */
    if (o->stance) cairo_set_source_rgb(cr, 0.15, 0.8, 0.2);
    else if (o->grounded) cairo_set_source_rgb(cr, 0.95, 0.8, 0.1);
    else cairo_set_source_rgb(cr, 0.9, 0.15, 0.1);
    cairo_arc(cr, LOCO_HUD_W - PAD - 6, top + h / 2, 4.5, 0, 2 * M_PI);
    cairo_fill(cr);
}

static void bar(cairo_t *cr, const char *name, double w, double y) {
    char v[16];
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    text(cr, PAD, y + 10, 9.5, false, name);
    cairo_set_source_rgb(cr, 0.32, 0.33, 0.36);
    cairo_rectangle(cr, STRIP_X, y + 2, STRIP_W - 12, 9);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.95, 0.62, 0.15);
    cairo_rectangle(cr, STRIP_X, y + 2, (STRIP_W - 12) * (w < 0 ? 0 : w > 1 ? 1 : w), 9);
    cairo_fill(cr);
    snprintf(v, sizeof v, "%.2f", w);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    text_right(cr, LOCO_HUD_W - PAD, y + 10, 9, v);
}

void loco_overlay_hud(const loco_overlay_frame *f, loco_overlay_toggles t, unsigned char *bgra) {
    int H = loco_overlay_hud_height(f, t);
    if (H <= 0) return;
    memset(bgra, 0, (size_t)LOCO_HUD_W * 4 * (size_t)H);
    cairo_surface_t *s =
        cairo_image_surface_create_for_data(bgra, CAIRO_FORMAT_ARGB32, LOCO_HUD_W, H, LOCO_HUD_W * 4);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgba(cr, 0.07, 0.08, 0.11, 0.78);
    cairo_rectangle(cr, 0, 0, LOCO_HUD_W, H);
    cairo_fill(cr);
    double y = PAD;
    if (t.weights) {
        char line[96];
        double speed = hypot(f->velocity.x, f->velocity.z);
        snprintf(line, sizeof line, "%s  %.2f m/s  phase %.2f", loco_overlay_mode_name(f->mode), speed, f->phase);
        cairo_set_source_rgb(cr, 1, 1, 1);
        text(cr, PAD, y + 11, 10.5, true, line);
        y += HEAD_H;
    }
    if (t.keytimes) {
        for (uint32_t l = 0; l < f->leg_count; l++, y += LEG_H) strip(cr, &f->legs[l], l, y);
        cairo_set_source_rgb(cr, 0.7, 0.7, 0.7);
        text(cr, STRIP_X - 2, y + 7, 8, false, "0");
        text_right(cr, STRIP_X + STRIP_W + 2, y + 7, 8, "1");
        text(cr, STRIP_X + 0.5 * STRIP_W - 28, y + 7, 8, false, "leg cycle");
        y += AXIS_H;
    }
    if (t.weights) {
        for (uint32_t i = 0; i < f->clip_count; i++, y += CLIP_H) bar(cr, f->clip[i], f->moving * f->weight[i], y);
        bar(cr, "idle", 1.0 - f->moving, y);
    }
    cairo_destroy(cr);
    cairo_surface_flush(s);
    cairo_surface_destroy(s);
}
