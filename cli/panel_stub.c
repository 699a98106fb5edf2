/* skelanim command-line tool: the panel (panel.h) of a build without Dear
 * ImGui (SK_PANEL=OFF, or AUTO without libimgui-dev): it draws nothing and
 * takes no input. With the panel (SK_HAVE_PANEL), panel_imgui.cpp. */
#include "panel.h"

#ifndef SK_HAVE_PANEL
#include <stdlib.h>

struct panel { bool visible; };

bool panel_supported(void) { return false; }
panel *panel_create(cli_window *win, bool visible, sk_error *err) {
    (void)win, (void)err;
    panel *p = calloc(1, sizeof *p);
    if (p) p->visible = visible;
    return p;
}
void panel_destroy(panel *p) { free(p); }
void panel_set_visible(panel *p, bool visible) { if (p) p->visible = visible; }
bool panel_visible(const panel *p) { return p && p->visible; }
bool panel_event(panel *p, const void *sdl_event) { (void)p, (void)sdl_event; return false; }
void panel_frame(panel *p, panel_state *s, int w, int h) { (void)p, (void)s, (void)w, (void)h; }
bool panel_item_rect(const panel *p, const char *label, float rect[4]) { (void)p, (void)label, (void)rect; return false; }
bool panel_window_rect(const panel *p, float rect[4]) { (void)p, (void)rect; return false; }
#else
typedef int panel_stub_unused; /* the ImGui panel is built instead */
#endif
