// skelanim command-line tool: the on-screen panel (panel.h) with Dear ImGui
// (Debian's libimgui-dev, its SDL2 and OpenGL 3 backends). The tool's one C++
// file, behind the C interface of panel.h; the libraries stay C.
//
// The mouse: ImGui's SDL2 backend reads the pointer from SDL's global state,
// which events pushed into the queue (scripted input) do not change, and
// which needs the window to have the keyboard focus. The panel keeps the
// pointer and the left button from the events it sees instead, so a person's
// mouse and a script's clicks take the same path; a press and a release seen
// in one frame still count as a click (the press held for that frame).
extern "C" {
#include "panel.h"
}

#include <SDL.h>
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>

#include <new>
#include <string.h>

namespace {
constexpr int kMaxItems = 16;
struct item_rect {
    const char *label;
    float r[4];
};
} // namespace

struct panel {
    ImGuiContext *ctx;
    bool visible;
    float mouse_x, mouse_y;
    bool down, release_next; // the left button; a release to apply after this frame's press
    bool drawn;
    float window[4];
    item_rect items[kMaxItems];
    int nitems;
};

extern "C" bool panel_supported(void) { return true; }

extern "C" panel *panel_create(cli_window *win, bool visible, sk_error *err) {
    SDL_Window *sw = static_cast<SDL_Window *>(cli_window_sdl(win));
    if (!sw) {
        sk_error_set(err, SK_ERR_UNSUPPORTED, "the panel needs an SDL2 window");
        return nullptr;
    }
    panel *p = new (std::nothrow) panel();
    if (!p) {
        sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        return nullptr;
    }
    p->visible = visible;
    p->mouse_x = p->mouse_y = -1e9f;
    IMGUI_CHECKVERSION();
    p->ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(p->ctx);
    ImGuiIO &io = ImGui::GetIO();
    io.IniFilename = nullptr; // no imgui.ini written beside the user's files
    io.LogFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGui::GetStyle().Alpha = 0.92f;
    if (!ImGui_ImplSDL2_InitForOpenGL(sw, cli_window_gl_context(win)) || !ImGui_ImplOpenGL3_Init("#version 330")) {
        sk_error_set(err, SK_ERR_UNSUPPORTED, "the panel (Dear ImGui) could not start on this OpenGL context");
        ImGui::DestroyContext(p->ctx);
        delete p;
        return nullptr;
    }
    return p;
}

extern "C" void panel_destroy(panel *p) {
    if (!p) return;
    ImGui::SetCurrentContext(p->ctx);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext(p->ctx);
    delete p;
}

extern "C" void panel_set_visible(panel *p, bool visible) {
    if (p) p->visible = visible;
}
extern "C" bool panel_visible(const panel *p) { return p && p->visible; }

static bool inside(const panel *p, float x, float y) {
    return p->visible && p->drawn && x >= p->window[0] && y >= p->window[1] && x < p->window[0] + p->window[2] &&
           y < p->window[1] + p->window[3];
}

extern "C" bool panel_event(panel *p, const void *event) {
    if (!p) return false;
    const SDL_Event *e = static_cast<const SDL_Event *>(event);
    ImGui::SetCurrentContext(p->ctx);
    ImGui_ImplSDL2_ProcessEvent(e);
    switch (e->type) {
    case SDL_MOUSEMOTION:
        p->mouse_x = (float)e->motion.x, p->mouse_y = (float)e->motion.y;
        return inside(p, p->mouse_x, p->mouse_y) || (p->down && p->visible && ImGui::GetIO().WantCaptureMouse);
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP: {
        float x = (float)e->button.x, y = (float)e->button.y;
        p->mouse_x = x, p->mouse_y = y;
        bool over = inside(p, x, y);
        if (e->button.button == SDL_BUTTON_LEFT) {
            if (e->type == SDL_MOUSEBUTTONDOWN) {
                if (over) p->down = true, p->release_next = false;
            } else if (p->down) {
                p->release_next = true; // applied after the frame that saw the press
                return true;
            }
        }
        return over;
    }
    case SDL_MOUSEWHEEL: return inside(p, p->mouse_x, p->mouse_y);
    default: return false;
    }
}

static void remember(panel *p, const char *label) {
    if (p->nitems >= kMaxItems) return;
    ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    p->items[p->nitems++] = item_rect{label, {a.x, a.y, b.x - a.x, b.y - a.y}};
}

extern "C" void panel_frame(panel *p, panel_state *s, int w, int h) {
    (void)w, (void)h;
    if (!p) return;
    p->drawn = false;
    p->nitems = 0;
    if (!p->visible) return;
    ImGui::SetCurrentContext(p->ctx);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    ImGuiIO &io = ImGui::GetIO();
    io.MousePos = ImVec2(p->mouse_x, p->mouse_y);
    io.MouseDown[0] = p->down;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(270, 0), ImGuiCond_Always);
    ImGui::Begin("skelanim", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::PushItemWidth(150);
    ImGui::Text("frame %.2f ms (animation %.3f ms)", s->frame_ms, s->anim_ms);
    ImGui::Text("animation time %.2f s", s->anim_time);
    if (s->clip_count) {
        ImGui::Separator();
        ImGui::TextUnformatted("clip");
        if (ImGui::BeginListBox("##clips", ImVec2(-1, 5.5f * ImGui::GetTextLineHeightWithSpacing()))) {
            for (uint32_t i = 0; i < s->clip_count; i++) {
                ImGui::PushID((int)i);
                if (ImGui::Selectable(s->clip_names[i], s->clip == (int32_t)i)) s->clip = (int32_t)i;
                ImGui::PopID();
            }
            ImGui::EndListBox();
        }
        remember(p, "clips");
        float t = (float)s->time, dur = (float)(s->duration > 0 ? s->duration : 0);
        if (ImGui::SliderFloat("time", &t, 0.0f, dur, "%.3f s")) s->time = t, s->paused = true;
        remember(p, "time");
        float sp = (float)s->speed;
        if (ImGui::SliderFloat("speed", &sp, 0.0f, 4.0f, "x%.2f")) s->speed = sp;
        remember(p, "speed");
        ImGui::Checkbox("paused", &s->paused);
        remember(p, "paused");
    }
    if (s->locomotion) {
        ImGui::Separator();
        ImGui::Text("%s at %.2f m/s", s->mode ? s->mode : "", s->current_speed);
        ImGui::SliderFloat("walk m/s", &s->walk_speed, 0.1f, 5.0f, "%.2f");
        remember(p, "walk_speed");
        ImGui::SliderFloat("run m/s", &s->run_speed, 0.1f, 8.0f, "%.2f");
        remember(p, "run_speed");
        ImGui::SliderFloat("turn deg/s", &s->turn_rate_deg, 10.0f, 720.0f, "%.0f");
        remember(p, "turn_rate");
        for (uint32_t i = 0; i < s->weight_count && s->weights && i < PANEL_MAX_WEIGHTS; i++) {
            ImGui::ProgressBar(s->weights[i], ImVec2(120, 0), "");
            ImGui::SameLine();
            ImGui::Text("%s %.2f", s->weight_names ? s->weight_names[i] : "", s->weights[i]);
        }
    }
    ImGui::Separator();
    ImGui::TextUnformatted("overlays");
    ImGui::Checkbox("footsteps", &s->toggles.show_footsteps);
    remember(p, "show_footsteps");
    ImGui::Checkbox("key times", &s->toggles.show_keytimes);
    remember(p, "show_keytimes");
    ImGui::Checkbox("blend weights", &s->toggles.show_weights);
    remember(p, "show_weights");
    ImGui::Checkbox("path", &s->toggles.show_path);
    remember(p, "show_path");
    ImGui::PopItemWidth();
    ImVec2 wp = ImGui::GetWindowPos(), ws = ImGui::GetWindowSize();
    p->window[0] = wp.x, p->window[1] = wp.y, p->window[2] = ws.x, p->window[3] = ws.y;
    ImGui::End();
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    p->drawn = true;
    if (p->release_next) p->down = false, p->release_next = false;
}

extern "C" bool panel_item_rect(const panel *p, const char *label, float rect[4]) {
    if (!p || !p->drawn) return false;
    for (int i = 0; i < p->nitems; i++)
        if (!strcmp(p->items[i].label, label)) {
            memcpy(rect, p->items[i].r, sizeof p->items[i].r);
            return true;
        }
    return false;
}

extern "C" bool panel_window_rect(const panel *p, float rect[4]) {
    if (!p || !p->drawn) return false;
    memcpy(rect, p->window, sizeof p->window);
    return true;
}
