/* skelanim analyze --plot (layout and colours: plot.h). Per leg one panel
 * over one cycle: heel, toe and footbase heights above their ground (left
 * axis, metres), the balance (10) and the normalised footbase z (19)-(22)
 * on a 0..1 scale (right axis), the contact shaded (foot-strike..foot-off
 * light, foot-land..foot-lift, the planted part, darker), the keytimes as
 * vertical lines with their names, heel-/toe-strike and -off as short ticks
 * at the top. */
#include "plot.h"

#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rgb { unsigned char r, g, b; } rgb;

static const rgb C_HEEL = {228, 26, 28}, C_TOE = {55, 126, 184}, C_FOOTBASE = {20, 20, 20},
                 C_BALANCE = {152, 78, 163}, C_NORMZ = {77, 160, 74}, C_GRID = {225, 225, 225},
                 C_AXIS = {90, 90, 90}, C_TEXT = {30, 30, 30}, C_CONTACT = {233, 239, 247},
                 C_PLANTED = {203, 218, 238}, C_TICK = {110, 110, 110};
/* Keytime markers (plot.h documents these values for tests). */
static const rgb C_STANCE = {0, 150, 150}, C_STRIKE = {255, 0, 255}, C_LAND = {150, 0, 150},
                 C_LIFT = {255, 140, 0}, C_OFF = {140, 70, 0};

static void set(cairo_t *cr, rgb c) { cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0); }

static int col_of(double u) { return (int)floor(CLI_PLOT_LEFT + u * CLI_PLOT_AREA_W + 0.5); }

static void text(cairo_t *cr, double x, double y, double size, bool bold, const char *s) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

static double text_width(cairo_t *cr, double size, const char *s) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

/* A shaded interval [a, b) of the cycle, wrapping over 1. */
static void shade(cairo_t *cr, double a, double b, double top, rgb c) {
    set(cr, c);
    double len = b - a;
    len -= floor(len);
    double x0 = CLI_PLOT_LEFT + a * CLI_PLOT_AREA_W, w = len * CLI_PLOT_AREA_W;
    double right = CLI_PLOT_LEFT + CLI_PLOT_AREA_W;
    if (x0 + w <= right + 1e-9) {
        cairo_rectangle(cr, x0, top, w, CLI_PLOT_AREA_H);
    } else {
        cairo_rectangle(cr, x0, top, right - x0, CLI_PLOT_AREA_H);
        cairo_rectangle(cr, CLI_PLOT_LEFT, top, x0 + w - right, CLI_PLOT_AREA_H);
    }
    cairo_fill(cr);
}

/* A per-sample curve; v(s) maps to a y pixel. Breaks where a value jumps
 * by more than `jump` pixels (the normalised z going from 1 back to 0). */
static void curve(cairo_t *cr, const float *v, size_t stride, uint32_t n, double top, double lo, double hi, rgb c,
                  double width, bool dashed, double jump) {
    set(cr, c);
    cairo_set_line_width(cr, width);
    double dash[2] = {7, 4};
    cairo_set_dash(cr, dash, dashed ? 2 : 0, 0);
    double prev = 0;
    for (uint32_t s = 0; s < n; s++) {
        double val = v[(size_t)s * stride];
        double x = CLI_PLOT_LEFT + (double)s / n * CLI_PLOT_AREA_W;
        double y = top + (1 - (val - lo) / (hi - lo)) * CLI_PLOT_AREA_H;
        if (s == 0 || fabs(y - prev) > jump) cairo_move_to(cr, x, y);
        else cairo_line_to(cr, x, y);
        prev = y;
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

/* A step for about 6 ticks over [0, hi]. */
static double nice_step(double hi) {
    double raw = hi / 6, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10);
}

typedef struct marker { const char *name; double t; rgb c; } marker;

static void legend_line(cairo_t *cr, double x, double y, rgb c, double w, bool dashed, const char *s) {
    set(cr, c);
    cairo_set_line_width(cr, w);
    double dash[2] = {7, 4};
    cairo_set_dash(cr, dash, dashed ? 2 : 0, 0);
    cairo_move_to(cr, x, y - 4);
    cairo_line_to(cr, x + 26, y - 4);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    set(cr, C_TEXT);
    text(cr, x + 32, y, 11, false, s);
}

static void legend_box(cairo_t *cr, double x, double y, rgb c, const char *s) {
    set(cr, c);
    cairo_rectangle(cr, x, y - 10, 26, 11);
    cairo_fill(cr);
    set(cr, C_TEXT);
    text(cr, x + 32, y, 11, false, s);
}

static void draw_panel(cairo_t *cr, const sk_motion_analysis *an, uint32_t k, double hmax, double hstep,
                       float *scratch) {
    const sk_leg_analysis *L = &an->legs[k];
    uint32_t N = an->sample_count;
    double y0 = CLI_PLOT_TITLE_H + (double)k * CLI_PLOT_PANEL_H, top = y0 + CLI_PLOT_PAD_TOP;
    double right = CLI_PLOT_LEFT + CLI_PLOT_AREA_W, bottom = top + CLI_PLOT_AREA_H;
    char buf[256];

    /* Panel title. */
    set(cr, C_TEXT);
    snprintf(buf, sizeof buf, "%s leg: stance %.3f, on the ground %.0f%% (foot-strike..foot-off), stride %.3f m/cycle from %s",
             L->name, L->stance_time, 100.0 * L->stance_fraction, L->stride_velocity,
             L->stride_source == SK_STRIDE_FOOTPRINTS ? "footprints" : "the contact");
    text(cr, CLI_PLOT_LEFT, y0 + 20, 13, true, buf);

    /* Contact: strike..off light, land..lift (planted) darker. */
    shade(cr, L->foot_strike, L->foot_off, top, C_CONTACT);
    shade(cr, L->foot_land, L->foot_lift, top, C_PLANTED);

    /* Grid and axes. */
    cairo_set_line_width(cr, 1);
    for (int i = 0; i <= 10; i++) {
        double x = col_of(i / 10.0) + 0.5;
        set(cr, C_GRID);
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x, bottom);
        cairo_stroke(cr);
        set(cr, C_TEXT);
        snprintf(buf, sizeof buf, "%.1f", i / 10.0);
        text(cr, x - text_width(cr, 11, buf) / 2, bottom + 15, 11, false, buf);
    }
    for (double h = 0; h <= hmax + 1e-9; h += hstep) {
        double y = floor(top + (1 - h / hmax) * CLI_PLOT_AREA_H) + 0.5;
        set(cr, C_GRID);
        cairo_move_to(cr, CLI_PLOT_LEFT, y);
        cairo_line_to(cr, right, y);
        cairo_stroke(cr);
        set(cr, C_TEXT);
        snprintf(buf, sizeof buf, "%.*f", hstep < 0.01 ? 3 : 2, h);
        text(cr, CLI_PLOT_LEFT - 6 - text_width(cr, 11, buf), y + 4, 11, false, buf);
    }
    for (int i = 0; i <= 4; i++) { /* right axis 0..1 */
        double y = floor(top + (1 - i / 4.0) * CLI_PLOT_AREA_H) + 0.5;
        set(cr, C_AXIS);
        cairo_move_to(cr, right, y);
        cairo_line_to(cr, right + 5, y);
        cairo_stroke(cr);
        set(cr, C_TEXT);
        snprintf(buf, sizeof buf, "%.2f", i / 4.0);
        text(cr, right + 8, y + 4, 11, false, buf);
    }
    set(cr, C_AXIS);
    cairo_rectangle(cr, CLI_PLOT_LEFT + 0.5, top + 0.5, CLI_PLOT_AREA_W, CLI_PLOT_AREA_H - 1);
    cairo_stroke(cr);
    /* Axis labels. */
    set(cr, C_TEXT);
    text(cr, CLI_PLOT_LEFT + CLI_PLOT_AREA_W / 2.0 - 70, bottom + 31, 12, false, "normalised cycle time");
    cairo_save(cr);
    cairo_translate(cr, 18, top + CLI_PLOT_AREA_H / 2.0 + 85);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, 12, false, "height above ground (m)");
    cairo_restore(cr);
    cairo_save(cr);
    cairo_translate(cr, right + 50, top + CLI_PLOT_AREA_H / 2.0 + 105);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, 12, false, "balance, normalised footbase z (0..1)");
    cairo_restore(cr);

    /* Curves, clipped to the plot area. */
    cairo_save(cr);
    cairo_rectangle(cr, CLI_PLOT_LEFT, top, CLI_PLOT_AREA_W, CLI_PLOT_AREA_H);
    cairo_clip(cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    double big = 1e9;
    curve(cr, L->heel_height, 1, N, top, 0, hmax, C_HEEL, 1.6, false, big);
    curve(cr, L->toe_height, 1, N, top, 0, hmax, C_TOE, 1.6, false, big);
    for (uint32_t s = 0; s < N; s++) /* footbase height above the ground under it */
        scratch[s] = L->heel_height[s] * (1 - L->balance[s]) + L->toe_height[s] * L->balance[s];
    curve(cr, scratch, 1, N, top, 0, hmax, C_FOOTBASE, 2.4, false, big);
    curve(cr, L->balance, 1, N, top, 0, 1, C_BALANCE, 1.4, true, big);
    curve(cr, &L->normalized_footbase[0].z, 3, N, top, 0, 1, C_NORMZ, 1.4, true, 0.5 * CLI_PLOT_AREA_H);
    cairo_restore(cr);

    /* Heel-/toe-strike and -off: short ticks at the top with short names. */
    const marker ticks[4] = {{"hs", L->heel_strike, C_TICK}, {"ts", L->toe_strike, C_TICK},
                             {"ho", L->heel_off, C_TICK}, {"to", L->toe_off, C_TICK}};
    for (int i = 0; i < 4; i++) {
        double x = col_of(ticks[i].t) + 0.5;
        set(cr, ticks[i].c);
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, x, top - 8);
        cairo_line_to(cr, x, top);
        cairo_stroke(cr);
        bool near = false; /* a neighbour's name closer than 12 pixels: this one right of its tick */
        for (int j = 0; j < i; j++) near = near || fabs(col_of(ticks[j].t) - (x - 0.5)) < 12;
        text(cr, near ? x + 2 : x - text_width(cr, 9, ticks[i].name) / 2, top - 10, 9, false, ticks[i].name);
    }

    /* Keytime markers: crisp 1-pixel columns in exact colours, stance last. */
    const marker marks[5] = {{"foot-strike", L->foot_strike, C_STRIKE}, {"foot-land", L->foot_land, C_LAND},
                             {"foot-lift", L->foot_lift, C_LIFT}, {"foot-off", L->foot_off, C_OFF},
                             {"stance", L->stance_time, C_STANCE}};
    /* Their names, vertical, just right of the line (left of it near the
     * right edge), from the bottom up; a name that would overlap one
     * already placed within 14 pixels goes above it. */
    double placed_x[5], placed_top[5], placed_base[5];
    int np = 0;
    for (int i = 0; i < 5; i++) {
        int c = col_of(marks[i].t);
        double w = text_width(cr, 11, marks[i].name), tx = c > right - 16 ? c - 3 : c + 13, base = bottom - 6;
        for (int again = 1; again;) {
            again = 0;
            for (int j = 0; j < np; j++)
                if (fabs(placed_x[j] - tx) < 14 && base > placed_top[j] - 4 && base - w < placed_base[j] + 4) {
                    base = placed_top[j] - 8;
                    again = 1;
                }
        }
        placed_x[np] = tx;
        placed_base[np] = base;
        placed_top[np++] = base - w;
        cairo_save(cr);
        set(cr, marks[i].c);
        cairo_translate(cr, tx, base);
        cairo_rotate(cr, -M_PI / 2);
        text(cr, 0, 0, 11, true, marks[i].name);
        cairo_restore(cr);
    }
    /* The lines over everything, so that each keeps its whole column. */
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    cairo_set_line_width(cr, 1);
    for (int i = 0; i < 5; i++) {
        double x = col_of(marks[i].t) + 0.5;
        set(cr, marks[i].c);
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x, bottom);
        cairo_stroke(cr);
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
}

static cairo_status_t write_png(void *closure, const unsigned char *data, unsigned int len) {
    return fwrite(data, 1, len, (FILE *)closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

bool cli_plot_analysis(const sk_motion_analysis *an, const char *label, const char *path, char *msg, size_t cap) {
    int W = CLI_PLOT_WIDTH, H = CLI_PLOT_TITLE_H + (int)an->leg_count * CLI_PLOT_PANEL_H + CLI_PLOT_BOTTOM_H;
    /* Open the file first: an unwritable path fails before any drawing. */
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(msg, cap, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    float *scratch = malloc((size_t)an->sample_count * sizeof *scratch);
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(surf);
    if (!scratch || cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        snprintf(msg, cap, "out of memory for a %dx%d plot", W, H);
        free(scratch);
        cairo_destroy(cr);
        cairo_surface_destroy(surf);
        fclose(f);
        remove(path);
        return false;
    }
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);

    /* One height scale for every leg: up to the highest heel or toe. */
    double hmax = 0;
    for (uint32_t l = 0; l < an->leg_count; l++)
        for (uint32_t s = 0; s < an->sample_count; s++)
            hmax = fmax(hmax, fmax(an->legs[l].heel_height[s], an->legs[l].toe_height[s]));
    if (!(hmax > 0)) hmax = 0.01;
    double hstep = nice_step(hmax * 1.05);
    hmax = ceil(hmax * 1.05 / hstep) * hstep;

    char buf[512];
    const char *base = label ? strrchr(label, '/') : NULL;
    base = base ? base + 1 : label ? label : "";
    set(cr, C_TEXT);
    snprintf(buf, sizeof buf, "%s, clip \"%s\"%s: cycle %.3f s, %.3f m/s (%.3f m/cycle)", base, an->clip_name,
             an->backward ? " (backward)" : "", an->cycle_duration, an->cycle_speed, an->cycle_velocity);
    text(cr, CLI_PLOT_LEFT, 26, 17, true, buf);
    text(cr, CLI_PLOT_LEFT, 48, 11, false,
         "motion analysis (seed 002 ch. 3); keytimes: hs/ts heel-/toe-strike, ho/to heel-/toe-off");

    for (uint32_t l = 0; l < an->leg_count; l++) draw_panel(cr, an, l, hmax, hstep, scratch);

    /* Legend in the right margin of the first panel, below its axis labels. */
    double lx = CLI_PLOT_LEFT + CLI_PLOT_AREA_W + 66, ly = CLI_PLOT_TITLE_H + CLI_PLOT_PAD_TOP + 8;
    legend_line(cr, lx, ly, C_HEEL, 1.6, false, "heel height");
    legend_line(cr, lx, ly += 17, C_TOE, 1.6, false, "toe height");
    legend_line(cr, lx, ly += 17, C_FOOTBASE, 2.4, false, "footbase height");
    legend_line(cr, lx, ly += 17, C_BALANCE, 1.4, true, "balance (right)");
    legend_line(cr, lx, ly += 17, C_NORMZ, 1.4, true, "footbase z (right)");
    legend_box(cr, lx, ly += 21, C_PLANTED, "planted");
    set(cr, C_TEXT);
    text(cr, lx + 32, ly += 13, 10, false, "land..lift");
    legend_box(cr, lx, ly += 19, C_CONTACT, "contact");
    text(cr, lx + 32, ly += 13, 10, false, "strike..off");
    legend_line(cr, lx, ly += 21, C_STANCE, 1, false, "stance");
    legend_line(cr, lx, ly += 17, C_STRIKE, 1, false, "foot-strike");
    legend_line(cr, lx, ly += 17, C_LAND, 1, false, "foot-land");
    legend_line(cr, lx, ly += 17, C_LIFT, 1, false, "foot-lift");
    legend_line(cr, lx, ly += 17, C_OFF, 1, false, "foot-off");

    cairo_destroy(cr);
    cairo_surface_flush(surf);
    cairo_status_t st = cairo_surface_write_to_png_stream(surf, write_png, f);
    cairo_surface_destroy(surf);
    /* cairo keeps its fonts (fontconfig patterns) in static caches, and
     * fontconfig its configuration; this is the only drawing of the
     * process, so both go now (the leak checks of the sanitizer build). */
    cairo_debug_reset_static_data();
    FcFini();
    free(scratch);
    int close_err = fclose(f);
    if (st != CAIRO_STATUS_SUCCESS || close_err != 0) {
        snprintf(msg, cap, "cannot write %s: %s", path,
                 st != CAIRO_STATUS_SUCCESS ? cairo_status_to_string(st) : strerror(errno));
        remove(path);
        return false;
    }
    return true;
}
