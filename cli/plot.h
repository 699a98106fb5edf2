/* skelanim analyze --plot: one cycle of a motion analysis drawn as a PNG
 * with cairo (CLI only: the libraries do not link cairo).
 *
 * Layout (pixels, fixed, so that tests can find things): the image is
 * CLI_PLOT_WIDTH wide and CLI_PLOT_TITLE_H + legs x CLI_PLOT_PANEL_H +
 * CLI_PLOT_BOTTOM_H high. Panel k (leg k, top to bottom) starts at
 * y0 = CLI_PLOT_TITLE_H + k x CLI_PLOT_PANEL_H; its plot area spans rows
 * y0 + CLI_PLOT_PAD_TOP .. y0 + CLI_PLOT_PAD_TOP + CLI_PLOT_AREA_H - 1 and
 * columns CLI_PLOT_LEFT .. CLI_PLOT_LEFT + CLI_PLOT_AREA_W. Normalised cycle
 * time u in [0, 1] is at column x = round(CLI_PLOT_LEFT + u x CLI_PLOT_AREA_W)
 * (80 + 910 u). Keytime markers are 1-pixel solid vertical lines, not
 * antialiased, over the whole plot area, drawn last, in these exact colours
 * (8-bit sRGB): stance (0, 150, 150), foot-strike (255, 0, 255), foot-land
 * (150, 0, 150), foot-lift (255, 140, 0), foot-off (140, 70, 0). */
#ifndef SK_CLI_PLOT_H
#define SK_CLI_PLOT_H

#include "skelanim/locomotion/analysis.h"

#include <stddef.h>

#define CLI_PLOT_WIDTH 1200
#define CLI_PLOT_LEFT 80
#define CLI_PLOT_AREA_W 910
#define CLI_PLOT_TITLE_H 64
#define CLI_PLOT_PANEL_H 380
#define CLI_PLOT_PAD_TOP 34
#define CLI_PLOT_AREA_H 300
#define CLI_PLOT_BOTTOM_H 16

/* Draws the analysis (every leg, one panel each) to a PNG at path. label
 * names the input in the title (e.g. the file). Returns false with a message
 * in msg (cap bytes) when the file cannot be written. */
bool cli_plot_analysis(const sk_motion_analysis *an, const char *label, const char *path, char *msg, size_t cap);

#endif
