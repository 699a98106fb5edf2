/* skelanim — BVH reader (include/skelanim/io/bvh.h, docs/bvh.md).
 *
 * One pass over the text with a line-aware tokenizer. The hierarchy is read
 * without recursion: the open joint is a cursor that moves to its parent at
 * "}", so nesting depth costs nothing but the joint records. The frame values
 * are read line by line into one array of doubles whose size is checked
 * against the rest of the file before it is allocated. */
#include "skelanim/io/bvh.h"
#include "core/internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BVH_DEFAULT_MAX_BYTES (1ull << 30)
#define BVH_NUM_MAX_CHARS 127

enum { CH_XPOS, CH_YPOS, CH_ZPOS, CH_XROT, CH_YROT, CH_ZROT };
static const char *const ch_names[6] = {"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"};

typedef struct bvh_joint {
    int32_t parent;
    const char *name;        /* into the text (not terminated) */
    uint32_t name_len;
    uint32_t line;           /* of ROOT/JOINT/End */
    double offset[3];
    uint32_t first_value;    /* index of its first channel in a frame */
    uint8_t nch;             /* channels */
    uint8_t ch[6];
    bool end_site, has_offset, has_channels;
} bvh_joint;

/* A joint's name for "%.*s" (names point into the text: not terminated), cut to 60 characters. */
#define NAME_LEN(j) ((int)((j)->name_len < 60 ? (j)->name_len : 60))
#define NAME_ARG(j) NAME_LEN(j), (j)->name

typedef struct bvh_parser {
    const char *p, *end;
    uint32_t line;
    const char *name;        /* for messages */
    sk_error *err;
    const sk_allocator *alloc;
    double scale;
    uint32_t max_joints;
    bvh_joint *joints;
    uint32_t count, cap;
    uint32_t nvalues;        /* channels per frame */
    uint8_t *kind;           /* nvalues channel kinds (CH_*), for the frame checks */
    uint32_t blank_mode;     /* sk_bvh_blank */
    sk_bvh_warning_fn warning;
    void *warning_user;
} bvh_parser;

typedef struct bvh_tok {
    const char *s;
    size_t len;
    uint32_t line;
} bvh_tok;

static sk_result fail(bvh_parser *ps, sk_result code, uint32_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static sk_result fail(bvh_parser *ps, sk_result code, uint32_t line, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sk_error_set(ps->err, code, "%s:%u: %s", ps->name, line, msg);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

/* Next token anywhere (newlines skipped and counted). Braces are tokens of
 * their own even when written against a word. False at the end of the text. */
static bool next_tok(bvh_parser *ps, bvh_tok *t) {
    while (ps->p < ps->end && (is_space(*ps->p) || *ps->p == '\n')) {
        if (*ps->p == '\n') ps->line++;
        ps->p++;
    }
    t->line = ps->line;
    if (ps->p >= ps->end) {
        t->s = ps->p, t->len = 0;
        return false;
    }
    t->s = ps->p;
    if (*ps->p == '{' || *ps->p == '}') {
        ps->p++;
    } else {
        while (ps->p < ps->end && !is_space(*ps->p) && *ps->p != '\n' && *ps->p != '{' && *ps->p != '}') ps->p++;
    }
    t->len = (size_t)(ps->p - t->s);
    return true;
}

/* Next token on the current line only; false (nothing consumed) at a newline or the end. */
static bool next_tok_line(bvh_parser *ps, bvh_tok *t) {
    while (ps->p < ps->end && is_space(*ps->p)) ps->p++;
    t->line = ps->line;
    if (ps->p >= ps->end || *ps->p == '\n') {
        t->s = ps->p, t->len = 0;
        return false;
    }
    return next_tok(ps, t);
}

static bool tok_is(const bvh_tok *t, const char *w) { return t->len == strlen(w) && memcmp(t->s, w, t->len) == 0; }

/* The token for a message: quoted and cut to 40 characters, or "the end of the file". */
static const char *tok_show(const bvh_tok *t, char *buf, size_t cap) {
    if (!t->len) return "the end of the file";
    size_t n = t->len < 40 ? t->len : 40;
    snprintf(buf, cap, "'%.*s%s'", (int)n, t->s, t->len > 40 ? "..." : "");
    return buf;
}

/* A decimal number: [+-] digits [. digits] [(e|E) [+-] digits]; no inf, nan or hex. */
static bool parse_number(const bvh_tok *t, double *out) {
    if (t->len == 0 || t->len > BVH_NUM_MAX_CHARS) return false;
    const char *s = t->s, *e = t->s + t->len;
    const char *q = s;
    if (q < e && (*q == '+' || *q == '-')) q++;
    size_t digits = 0;
    while (q < e && *q >= '0' && *q <= '9') q++, digits++;
    if (q < e && *q == '.') {
        q++;
        while (q < e && *q >= '0' && *q <= '9') q++, digits++;
    }
    if (!digits) return false;
    if (q < e && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < e && (*q == '+' || *q == '-')) q++;
        size_t ed = 0;
        while (q < e && *q >= '0' && *q <= '9') q++, ed++;
        if (!ed) return false;
    }
    if (q != e) return false;
    char buf[BVH_NUM_MAX_CHARS + 1];
    memcpy(buf, s, t->len);
    buf[t->len] = 0;
    char *endp = NULL;
    double v = strtod(buf, &endp);
    if (endp != buf + t->len) return false;
    *out = v;
    return true;
}

/* A number token on the current line: finite, |v| <= limit. what names it in messages. */
static sk_result read_number(bvh_parser *ps, double limit, const char *what, double *out) {
    bvh_tok t;
    char b[64];
    if (!next_tok_line(ps, &t))
        return fail(ps, SK_ERR_PARSE, ps->line, "expected %s (a number), got the end of the line", what);
    if (!parse_number(&t, out))
        return fail(ps, SK_ERR_PARSE, t.line, "expected %s (a number), got %s", what, tok_show(&t, b, sizeof b));
    if (!isfinite(*out) || !(fabs(*out) <= limit))
        return fail(ps, SK_ERR_PARSE, t.line, "%s %s is out of range (|value| <= %g)", what, tok_show(&t, b, sizeof b),
                    limit);
    return SK_OK;
}

static sk_result expect_line_end(bvh_parser *ps, const char *after) {
    bvh_tok t;
    char b[64];
    if (next_tok_line(ps, &t))
        return fail(ps, SK_ERR_PARSE, t.line, "unexpected %s after %s", tok_show(&t, b, sizeof b), after);
    return SK_OK;
}

static sk_result add_joint(bvh_parser *ps, int32_t parent, const bvh_tok *name, uint32_t line, bool end_site,
                           uint32_t *out) {
    if (ps->count >= ps->max_joints)
        return fail(ps, SK_ERR_LIMIT, line, "more than %u joints (end sites included; sk_bvh_options.max_joints)",
                    ps->max_joints);
    if (ps->count == ps->cap) {
        uint32_t nc = ps->cap ? ps->cap * 2 : 64;
        if (nc > ps->max_joints) nc = ps->max_joints;
        bvh_joint *nj = sk_realloc(ps->alloc, ps->joints, (size_t)ps->cap * sizeof *nj, (size_t)nc * sizeof *nj);
        if (!nj) return sk_error_set(ps->err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", ps->name);
        ps->joints = nj, ps->cap = nc;
    }
    bvh_joint *j = &ps->joints[ps->count];
    memset(j, 0, sizeof *j);
    j->parent = parent;
    j->name = name ? name->s : "";
    j->name_len = name ? (uint32_t)name->len : 0;
    j->line = line;
    j->end_site = end_site;
    *out = ps->count++;
    return SK_OK;
}

static sk_result read_channels(bvh_parser *ps, bvh_joint *j, uint32_t line) {
    char b[64];
    if (j->end_site) return fail(ps, SK_ERR_PARSE, line, "an End Site has no CHANNELS");
    if (j->has_channels) return fail(ps, SK_ERR_PARSE, line, "a second CHANNELS for joint '%.*s'", NAME_ARG(j));
    bvh_tok t;
    if (!next_tok_line(ps, &t))
        return fail(ps, SK_ERR_PARSE, line, "expected a channel count after CHANNELS, got the end of the line");
    double n;
    if (!parse_number(&t, &n) || n != floor(n) || n < 0 || n > 6)
        return fail(ps, SK_ERR_PARSE, t.line, "expected a channel count 0..6 after CHANNELS, got %s",
                    tok_show(&t, b, sizeof b));
    j->nch = (uint8_t)n;
    unsigned seen = 0;
    for (uint32_t k = 0; k < j->nch; k++) {
        if (!next_tok_line(ps, &t))
            return fail(ps, SK_ERR_PARSE, line, "CHANNELS %u lists %u channel name%s", j->nch, k, k == 1 ? "" : "s");
        int c = -1;
        for (int q = 0; q < 6; q++)
            if (tok_is(&t, ch_names[q])) c = q;
        if (c < 0)
            return fail(ps, SK_ERR_PARSE, t.line,
                        "expected a channel name (Xposition, Yposition, Zposition, Xrotation, Yrotation, Zrotation), "
                        "got %s",
                        tok_show(&t, b, sizeof b));
        if (seen & (1u << c)) return fail(ps, SK_ERR_PARSE, t.line, "channel %s listed twice", ch_names[c]);
        seen |= 1u << c;
        j->ch[k] = (uint8_t)c;
    }
    if (next_tok_line(ps, &t))
        return fail(ps, SK_ERR_PARSE, t.line, "CHANNELS %u lists more channel names (%s)", j->nch,
                    tok_show(&t, b, sizeof b));
    if ((uint64_t)ps->nvalues + j->nch > UINT32_MAX)
        return fail(ps, SK_ERR_LIMIT, line, "too many channels");
    j->first_value = ps->nvalues;
    ps->nvalues += j->nch;
    j->has_channels = true;
    return SK_OK;
}

/* HIERARCHY up to and including the MOTION keyword. */
static sk_result read_hierarchy(bvh_parser *ps) {
    bvh_tok t;
    char b[64];
    if (!next_tok(ps, &t) || !tok_is(&t, "HIERARCHY"))
        return fail(ps, SK_ERR_PARSE, t.line, "expected HIERARCHY, got %s", tok_show(&t, b, sizeof b));
    sk_result r = expect_line_end(ps, "HIERARCHY");
    if (r != SK_OK) return r;
    bool any_root = false;
    for (;;) {
        if (!next_tok(ps, &t)) {
            if (!any_root) return fail(ps, SK_ERR_PARSE, t.line, "expected ROOT, got the end of the file");
            return fail(ps, SK_ERR_PARSE, t.line, "expected MOTION, got the end of the file");
        }
        if (tok_is(&t, "MOTION")) {
            if (!any_root) return fail(ps, SK_ERR_PARSE, t.line, "expected ROOT before MOTION");
            return expect_line_end(ps, "MOTION");
        }
        if (!tok_is(&t, "ROOT"))
            return fail(ps, SK_ERR_PARSE, t.line, "expected ROOT or MOTION, got %s", tok_show(&t, b, sizeof b));
        any_root = true;
        /* One hierarchy: cur is the open joint (-1: none). */
        int64_t cur = -1;
        bvh_tok kw = t;
        for (;;) {
            /* kw is ROOT, JOINT or End: open a joint. */
            bool end_site = tok_is(&kw, "End");
            bvh_tok name;
            uint32_t line = kw.line;
            if (end_site) {
                if (!next_tok_line(ps, &name) || !tok_is(&name, "Site"))
                    return fail(ps, SK_ERR_PARSE, line, "expected 'Site' after 'End'");
                if (cur < 0) return fail(ps, SK_ERR_PARSE, line, "End Site outside a joint");
                if (ps->joints[cur].end_site) return fail(ps, SK_ERR_PARSE, line, "End Site inside an End Site");
            } else {
                if (!next_tok_line(ps, &name) || name.s[0] == '{' || name.s[0] == '}')
                    return fail(ps, SK_ERR_PARSE, line, "expected a joint name after %.*s", (int)kw.len, kw.s);
                if (cur >= 0 && ps->joints[cur].end_site)
                    return fail(ps, SK_ERR_PARSE, line, "JOINT inside an End Site");
            }
            uint32_t idx = 0;
            r = add_joint(ps, (int32_t)cur, end_site ? NULL : &name, line, end_site, &idx);
            if (r != SK_OK) return r;
            cur = idx;
            if (!next_tok(ps, &t) || !tok_is(&t, "{"))
                return fail(ps, SK_ERR_PARSE, t.line, "expected '{', got %s", tok_show(&t, b, sizeof b));
            /* Body statements until a JOINT/End opens a child or '}' closes. */
            for (;;) {
                if (!next_tok(ps, &t))
                    return fail(ps, SK_ERR_PARSE, t.line, "expected '}' to close '%.*s' (line %u), got the end of the file",
                                ps->joints[cur].end_site ? 8 : NAME_LEN(&ps->joints[cur]),
                                ps->joints[cur].end_site ? "End Site" : ps->joints[cur].name, ps->joints[cur].line);
                bvh_joint *j = &ps->joints[cur];
                if (tok_is(&t, "OFFSET")) {
                    if (j->has_offset) return fail(ps, SK_ERR_PARSE, t.line, "a second OFFSET");
                    static const char *const what[3] = {"OFFSET x", "OFFSET y", "OFFSET z"};
                    for (int k = 0; k < 3; k++) {
                        r = read_number(ps, SK_BVH_MAX_COORD / ps->scale, what[k], &j->offset[k]);
                        if (r != SK_OK) return r;
                    }
                    if ((r = expect_line_end(ps, "OFFSET x y z")) != SK_OK) return r;
                    j->has_offset = true;
                } else if (tok_is(&t, "CHANNELS")) {
                    if ((r = read_channels(ps, j, t.line)) != SK_OK) return r;
                } else if (tok_is(&t, "JOINT") || tok_is(&t, "End")) {
                    if (j->end_site) return fail(ps, SK_ERR_PARSE, t.line, "an End Site has no children");
                    const char *what = t.s[0] == 'E' ? "End Site" : "JOINT";
                    if (!j->has_offset) return fail(ps, SK_ERR_PARSE, t.line, "expected OFFSET before %s", what);
                    if (!j->has_channels) return fail(ps, SK_ERR_PARSE, t.line, "expected CHANNELS before %s", what);
                    break; /* open the child */
                } else if (tok_is(&t, "}")) {
                    if (!j->has_offset) return fail(ps, SK_ERR_PARSE, t.line, "expected OFFSET before '}'");
                    if (!j->end_site && !j->has_channels)
                        return fail(ps, SK_ERR_PARSE, t.line, "expected CHANNELS before '}'");
                    cur = j->parent;
                    if (cur < 0) break;
                } else {
                    return fail(ps, SK_ERR_PARSE, t.line, "expected OFFSET, CHANNELS, JOINT, End Site or '}', got %s",
                                tok_show(&t, b, sizeof b));
                }
            }
            if (cur < 0) break; /* the ROOT closed */
            kw = t;
        }
    }
}

/* "Frames: N" and "Frame Time: T". */
static sk_result read_motion_header(bvh_parser *ps, uint32_t *frames, double *frame_time, uint32_t *frames_line) {
    bvh_tok t;
    char b[64];
    if (!next_tok(ps, &t) || !tok_is(&t, "Frames:"))
        return fail(ps, SK_ERR_PARSE, t.line, "expected 'Frames:', got %s", tok_show(&t, b, sizeof b));
    *frames_line = t.line;
    double n;
    sk_result r = read_number(ps, 1e300, "the frame count", &n);
    if (r != SK_OK) return r;
    if (n != floor(n) || n < 0) return fail(ps, SK_ERR_PARSE, t.line, "the frame count must be a whole number >= 0");
    if (n > SK_BVH_MAX_FRAMES)
        return fail(ps, SK_ERR_LIMIT, t.line, "Frames: %.0f is more than %u (SK_BVH_MAX_FRAMES)", n, SK_BVH_MAX_FRAMES);
    if ((r = expect_line_end(ps, "the frame count")) != SK_OK) return r;
    *frames = (uint32_t)n;
    if (!next_tok(ps, &t) || !tok_is(&t, "Frame"))
        return fail(ps, SK_ERR_PARSE, t.line, "expected 'Frame Time:', got %s", tok_show(&t, b, sizeof b));
    bvh_tok t2;
    if (!next_tok_line(ps, &t2) || !tok_is(&t2, "Time:"))
        return fail(ps, SK_ERR_PARSE, t.line, "expected 'Frame Time:', got 'Frame' and %s", tok_show(&t2, b, sizeof b));
    if ((r = read_number(ps, 1e300, "the frame time", frame_time)) != SK_OK) return r;
    if (!(*frame_time > 0.0)) return fail(ps, SK_ERR_PARSE, t.line, "the frame time must be positive");
    /* Key i is at (float)(i x Frame Time): each must come after the one before
     * (a frame time under float32's resolution gives keys at one time). */
    for (uint32_t f = 1; f < *frames; f++)
        if (!((float)((double)f * *frame_time) > (float)((double)(f - 1) * *frame_time)))
            return fail(ps, SK_ERR_PARSE, t.line,
                        "a frame time of %g s puts frames %u and %u at one time in float32 seconds (keys need "
                        "increasing times)",
                        *frame_time, f - 1, f);
    if (*frames > 1 && (double)(*frames - 1) * *frame_time > SK_BVH_MAX_DURATION)
        return fail(ps, SK_ERR_LIMIT, t.line, "%u frames of %g s last more than %g s", *frames, *frame_time,
                    SK_BVH_MAX_DURATION);
    return expect_line_end(ps, "the frame time");
}

/* The joint whose channels hold frame value k (k < nvalues). */
static const bvh_joint *joint_of_value(const bvh_parser *ps, uint32_t k) {
    uint32_t lo = 0, hi = ps->count; /* first_value is non-decreasing in joint order */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ps->joints[mid].first_value <= k) lo = mid;
        else hi = mid;
    }
    while (lo > 0 && (ps->joints[lo].nch == 0 || ps->joints[lo].first_value > k)) lo--;
    while (lo < ps->count && !(ps->joints[lo].nch && k >= ps->joints[lo].first_value &&
                               k < ps->joints[lo].first_value + ps->joints[lo].nch))
        lo++;
    return &ps->joints[lo < ps->count ? lo : 0];
}

/* The frame lines into values[frames * nvalues]. */
static sk_result read_frames(bvh_parser *ps, uint32_t frames, uint32_t frames_line, double *values) {
    char b[64];
    bvh_tok t;
    for (uint32_t f = 0; f < frames; f++) {
        /* Skip blank lines; the frame is the next non-blank line. */
        if (!next_tok(ps, &t))
            return fail(ps, SK_ERR_PARSE, t.line, "the file ends after %u of %u frames (Frames: at line %u)", f, frames,
                        frames_line);
        ps->p = t.s; /* read the line from its first token */
        uint32_t line = t.line;
        double *row = values + (size_t)f * ps->nvalues;
        uint32_t k = 0;
        while (next_tok_line(ps, &t)) {
            if (k < ps->nvalues) {
                if (!parse_number(&t, &row[k]) || !isfinite(row[k])) {
                    const bvh_joint *jj = joint_of_value(ps, k);
                    return fail(ps, SK_ERR_PARSE, line, "frame %u, value %u (%.*s %s): expected a finite number, got %s",
                                f, k + 1, NAME_ARG(jj), ch_names[jj->ch[k - jj->first_value]],
                                tok_show(&t, b, sizeof b));
                }
                if (ps->kind[k] < CH_XROT && !(fabs(row[k] * ps->scale) <= SK_BVH_MAX_COORD)) {
                    const bvh_joint *jj = joint_of_value(ps, k);
                    return fail(ps, SK_ERR_PARSE, line, "frame %u, value %u (%.*s %s) %s is out of range "
                                "(|value| x scale <= %g)", f, k + 1, NAME_ARG(jj), ch_names[ps->kind[k]],
                                tok_show(&t, b, sizeof b), SK_BVH_MAX_COORD);
                }
            }
            k++;
        }
        if (k != ps->nvalues)
            return fail(ps, SK_ERR_PARSE, line, "frame %u has %u values, expected %u (the hierarchy's channels)", f, k,
                        ps->nvalues);
    }
    if (next_tok(ps, &t))
        return fail(ps, SK_ERR_PARSE, t.line, "more frame data than 'Frames: %u' (line %u) declares", frames,
                    frames_line);
    return SK_OK;
}

static void quat_mul(const double a[4], const double b[4], double o[4]) { /* x y z w */
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x, o[1] = y, o[2] = z, o[3] = w;
}

/* The asset from the parsed hierarchy and values. */
/* Blank frames (every channel 0): blank[f] set; their count. */
static uint32_t find_blank(const bvh_parser *ps, uint32_t frames, const double *values, uint8_t *blank) {
    uint32_t n = 0;
    for (uint32_t f = 0; f < frames; f++) {
        const double *row = values + (size_t)f * ps->nvalues;
        bool zero = ps->nvalues > 0;
        for (uint32_t k = 0; k < ps->nvalues && zero; k++) zero = row[k] == 0.0;
        blank[f] = zero;
        n += zero;
    }
    return n;
}

/* The warning for n blank frames of `frames`: their ranges (at most eight) and what was done. */
static void warn_blank(const bvh_parser *ps, const uint8_t *blank, uint32_t frames, uint32_t n, bool filled) {
    if (!ps->warning || !n) return;
    char msg[512];
    int len = snprintf(msg, sizeof msg, "%s: %u of %u frames blank (every channel 0: the skeleton at the origin in its rest pose, "
                                        "as captures write frames they did not record):", ps->name, n, frames);
    uint32_t ranges = 0;
    for (uint32_t f = 0; f < frames && len > 0 && (size_t)len < sizeof msg; f++) {
        if (!blank[f] || (f && blank[f - 1])) continue;
        uint32_t e = f;
        while (e + 1 < frames && blank[e + 1]) e++;
        if (++ranges > 8) {
            len += snprintf(msg + len, sizeof msg - (size_t)len, ", ...");
            break;
        }
        if (e == f) len += snprintf(msg + len, sizeof msg - (size_t)len, "%s %u", ranges > 1 ? "," : "", f);
        else len += snprintf(msg + len, sizeof msg - (size_t)len, "%s %u-%u", ranges > 1 ? "," : "", f, e);
    }
    if (len > 0 && (size_t)len < sizeof msg)
        snprintf(msg + len, sizeof msg - (size_t)len, "%s",
                 filled ? "; filled from the recorded frames around them"
                 : n == frames ? "; every frame is blank, nothing to fill them from: kept"
                               : "; kept (sk_bvh_options.blank = SK_BVH_BLANK_FILL fills them)");
    ps->warning(ps->warning_user, msg);
}

/* One track's keys (width 3: translations, lerped; 4: rotations, slerped in
 * double) of the blank frames from the recorded frames around each run;
 * then the rotations' hemispheres made continuous again. */
static void fill_blank(float *vals, uint32_t width, uint32_t frames, const uint8_t *blank) {
    for (uint32_t s = 0; s < frames; s++) {
        if (!blank[s]) continue;
        uint32_t e = s;
        while (e + 1 < frames && blank[e + 1]) e++;
        bool has_a = s > 0, has_b = e + 1 < frames;
        const float *a = has_a ? vals + (size_t)(s - 1) * width : NULL, *b = has_b ? vals + (size_t)(e + 1) * width : NULL;
        for (uint32_t f = s; f <= e; f++) {
            float *o = vals + (size_t)f * width;
            if (!has_a || !has_b) {
                memcpy(o, has_a ? a : b, width * sizeof *o);
                continue;
            }
            double u = (double)(f - (s - 1)) / (double)(e + 2 - s), x[4];
            if (width == 3) {
                for (uint32_t c = 0; c < 3; c++) o[c] = (float)((double)a[c] + ((double)b[c] - (double)a[c]) * u);
                continue;
            }
            double dot = 0, sg = 1;
            for (int c = 0; c < 4; c++) dot += (double)a[c] * (double)b[c];
            if (dot < 0) dot = -dot, sg = -1;
            double wa = 1 - u, wb = u;
            if (dot < 0.9999) {
                double th = acos(dot > 1 ? 1 : dot), st = sin(th);
                wa = sin((1 - u) * th) / st, wb = sin(u * th) / st;
            }
            double len = 0;
            for (int c = 0; c < 4; c++) x[c] = wa * (double)a[c] + sg * wb * (double)b[c], len += x[c] * x[c];
            len = sqrt(len);
            for (int c = 0; c < 4; c++) o[c] = (float)(x[c] / len);
        }
        s = e;
    }
    if (width == 4)
        for (uint32_t f = 1; f < frames; f++) {
            float *q = vals + (size_t)f * 4;
            const float *p = q - 4;
            if ((double)p[0] * q[0] + (double)p[1] * q[1] + (double)p[2] * q[2] + (double)p[3] * q[3] < 0)
                for (int c = 0; c < 4; c++) q[c] = -q[c];
        }
}

static sk_result build_asset(bvh_parser *ps, const char *clip_name, uint32_t frames, double frame_time,
                             const double *values, sk_asset **out) {
    const sk_allocator *alloc = ps->alloc;
    sk_asset *asset = NULL;
    sk_result r = sk_asset_create_empty(alloc, &asset, ps->err);
    if (r != SK_OK) return r;
    uint32_t n = ps->count;
    int32_t *parents = sk_asset_alloc(asset, (size_t)n * sizeof *parents);
    sk_transform *rest = sk_asset_alloc(asset, (size_t)n * sizeof *rest);
    const char **names = sk_asset_alloc(asset, (size_t)n * sizeof *names);
    uint32_t *n2j = sk_asset_alloc(asset, (size_t)n * sizeof *n2j);
    uint32_t *j2n = sk_asset_alloc(asset, (size_t)n * sizeof *j2n);
    int32_t *jmesh = sk_asset_alloc(asset, (size_t)n * sizeof *jmesh);
    int32_t *jskin = sk_asset_alloc(asset, (size_t)n * sizeof *jskin);
    sk_scene *scene = sk_asset_alloc(asset, sizeof *scene);
    uint32_t roots = 0;
    for (uint32_t i = 0; i < n; i++) roots += ps->joints[i].parent < 0;
    uint32_t *root_list = sk_asset_alloc(asset, (size_t)roots * sizeof *root_list);
    sk_clip **clips = sk_asset_alloc(asset, sizeof *clips);
    float *times = NULL, *vals = NULL;
    uint8_t *blank = NULL;
    size_t times_bytes = 0, vals_bytes = 0;
    bool fill = false;
    if (!parents || !rest || !names || !n2j || !j2n || !jmesh || !jskin || !scene || !root_list || !clips) goto oom;
    roots = 0;
    for (uint32_t i = 0; i < n; i++) {
        const bvh_joint *j = &ps->joints[i];
        parents[i] = j->parent;
        rest[i] = sk_transform_identity();
        rest[i].t = sk_vec3_make((float)(j->offset[0] * ps->scale), (float)(j->offset[1] * ps->scale),
                                 (float)(j->offset[2] * ps->scale));
        char *nm;
        if (j->end_site) {
            const bvh_joint *p = &ps->joints[j->parent];
            nm = sk_asset_alloc(asset, (size_t)p->name_len + 5);
            if (!nm) goto oom;
            memcpy(nm, p->name, p->name_len);
            memcpy(nm + p->name_len, "_end", 5);
        } else {
            nm = sk_asset_alloc(asset, (size_t)j->name_len + 1);
            if (!nm) goto oom;
            memcpy(nm, j->name, j->name_len);
        }
        names[i] = nm;
        n2j[i] = j2n[i] = i;
        jmesh[i] = jskin[i] = -1;
        if (j->parent < 0) root_list[roots++] = i;
    }
    sk_skeleton_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.joint_count = n;
    sd.parents = parents;
    sd.names = names;
    sd.rest = rest;
    if ((r = sk_skeleton_create(&sd, alloc, &asset->skeleton, ps->err)) != SK_OK) goto fail_r;
    asset->node_count = n;
    asset->node_to_joint = n2j;
    asset->joint_to_node = j2n;
    asset->joint_mesh = jmesh;
    asset->joint_skin = jskin;
    scene->name = "";
    scene->root_count = roots;
    scene->roots = root_list;
    asset->scene_count = 1;
    asset->scenes = scene;
    asset->default_scene = 0;
    asset->generator = "";
    asset->clips = clips;

    if (frames > 0) {
        times_bytes = (size_t)frames * sizeof(float);
        vals_bytes = (size_t)frames * 4 * sizeof(float);
        times = sk_alloc(alloc, times_bytes);
        vals = sk_alloc(alloc, vals_bytes);
        blank = sk_alloc(alloc, frames);
        if (!times || !vals || !blank) goto oom;
        uint32_t nblank = find_blank(ps, frames, values, blank);
        fill = ps->blank_mode == SK_BVH_BLANK_FILL && nblank && nblank < frames;
        warn_blank(ps, blank, frames, nblank, fill);
        for (uint32_t f = 0; f < frames; f++) times[f] = (float)((double)f * frame_time);
        uint32_t tracks = 0;
        size_t keys = 0, fl = 0;
        for (uint32_t i = 0; i < n; i++) {
            const bvh_joint *j = &ps->joints[i];
            bool has_rot = false, has_pos = false;
            for (uint32_t k = 0; k < j->nch; k++) {
                if (j->ch[k] >= CH_XROT) has_rot = true;
                else has_pos = true;
            }
            if (has_rot) tracks++, keys += frames, fl += (size_t)frames * 4;
            if (has_pos) tracks++, keys += frames, fl += (size_t)frames * 3;
        }
        sk_clip_builder *cb = NULL;
        if ((r = sk_clip_builder_create(clip_name, alloc, &cb, ps->err)) != SK_OK) goto fail_r;
        if ((r = sk_clip_builder_reserve(cb, tracks, keys, fl, ps->err)) != SK_OK) {
            sk_clip_builder_destroy(cb);
            goto fail_r;
        }
        const double d2r = 3.14159265358979323846 / 180.0;
        for (uint32_t i = 0; i < n && r == SK_OK; i++) {
            const bvh_joint *j = &ps->joints[i];
            bool has_rot = false, has_pos = false;
            for (uint32_t k = 0; k < j->nch; k++) {
                if (j->ch[k] >= CH_XROT) has_rot = true;
                else has_pos = true;
            }
            if (has_rot) {
                double prev[4] = {0, 0, 0, 1};
                for (uint32_t f = 0; f < frames; f++) {
                    const double *row = values + (size_t)f * ps->nvalues + j->first_value;
                    double q[4] = {0, 0, 0, 1};
                    for (uint32_t k = 0; k < j->nch; k++) {
                        if (j->ch[k] < CH_XROT) continue;
                        double h = 0.5 * row[k] * d2r, a[4] = {0, 0, 0, cos(h)};
                        a[j->ch[k] - CH_XROT] = sin(h);
                        quat_mul(q, a, q);
                    }
                    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                    double dot = q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3];
                    double s = (dot < 0 ? -1.0 : 1.0) / len;
                    for (int c = 0; c < 4; c++) {
                        q[c] *= s;
                        prev[c] = q[c];
                        vals[(size_t)f * 4 + (size_t)c] = (float)q[c];
                    }
                }
                if (fill) fill_blank(vals, 4, frames, blank);
                sk_track_desc td = {i, SK_PATH_ROTATION, SK_INTERP_LINEAR, frames, times, vals, 4};
                r = sk_clip_builder_add_track(cb, &td, ps->err);
            }
            if (has_pos && r == SK_OK) {
                for (uint32_t f = 0; f < frames; f++) {
                    const double *row = values + (size_t)f * ps->nvalues + j->first_value;
                    double p[3] = {j->offset[0], j->offset[1], j->offset[2]};
                    for (uint32_t k = 0; k < j->nch; k++)
                        if (j->ch[k] < CH_XROT) p[j->ch[k]] = row[k];
                    for (int c = 0; c < 3; c++) vals[(size_t)f * 3 + (size_t)c] = (float)(p[c] * ps->scale);
                }
                if (fill) fill_blank(vals, 3, frames, blank);
                sk_track_desc td = {i, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, frames, times, vals, 3};
                r = sk_clip_builder_add_track(cb, &td, ps->err);
            }
        }
        if (r != SK_OK) {
            sk_clip_builder_destroy(cb);
            goto fail_r;
        }
        sk_clip_builder_set_duration(cb, (double)(frames - 1) * frame_time);
        if ((r = sk_clip_builder_finish(cb, &clips[0], ps->err)) != SK_OK) goto fail_r;
        asset->clip_count = 1;
    }
    sk_free(alloc, times, times_bytes);
    sk_free(alloc, vals, vals_bytes);
    sk_free(alloc, blank, blank ? frames : 0);
    *out = asset;
    return SK_OK;
oom:
    r = SK_ERR_OUT_OF_MEMORY;
    sk_error_set(ps->err, r, "%s: out of memory", ps->name);
fail_r:
    if (r == SK_ERR_OUT_OF_MEMORY) sk_error_set(ps->err, r, "%s: out of memory", ps->name);
    sk_free(alloc, times, times_bytes);
    sk_free(alloc, vals, vals_bytes);
    sk_free(alloc, blank, blank ? frames : 0);
    sk_asset_destroy(asset);
    return r;
}

/* The clip name: the base name without its extension. */
static void clip_name_of(const char *name, char *out, size_t cap) {
    const char *b = strrchr(name, '/');
    b = b ? b + 1 : name;
    size_t n = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot != b) n = (size_t)(dot - b);
    if (n >= cap) n = cap - 1;
    memcpy(out, b, n);
    out[n] = 0;
    if (!out[0]) snprintf(out, cap, "bvh");
}

sk_result sk_bvh_load_memory(const void *data, size_t size, const char *name, const sk_bvh_options *opts,
                             sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_bvh_load_memory: out is NULL");
    *out = NULL;
    if (!name) name = "bvh";
    if (!data && size) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_bvh_load_memory: data is NULL");
    double scale = opts && opts->scale != 0.0 ? opts->scale : 1.0;
    if (!isfinite(scale) || !(scale > 0.0) || scale > 1e15)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: scale %g must be finite and positive (0 = 1)", name,
                            opts ? opts->scale : 0.0);
    if (opts && opts->blank > SK_BVH_BLANK_FILL)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: blank %u is not an sk_bvh_blank (0 keep, 1 fill)", name, opts->blank);
    bvh_parser ps;
    memset(&ps, 0, sizeof ps);
    ps.blank_mode = opts ? opts->blank : SK_BVH_BLANK_KEEP;
    ps.warning = opts ? opts->warning : NULL;
    ps.warning_user = opts ? opts->warning_user : NULL;
    ps.p = data ? data : "";
    ps.end = ps.p + size;
    ps.line = 1;
    ps.name = name;
    ps.err = err;
    ps.alloc = sk_allocator_or_default(opts ? &opts->allocator : NULL);
    ps.scale = scale;
    ps.max_joints = opts && opts->max_joints ? opts->max_joints : SK_BVH_MAX_JOINTS;
    if (ps.max_joints > SK_MAX_JOINTS) ps.max_joints = SK_MAX_JOINTS;
    double *values = NULL;
    size_t values_bytes = 0;
    uint32_t frames = 0, frames_line = 0;
    double frame_time = 0;
    sk_result r = read_hierarchy(&ps);
    if (r == SK_OK) r = read_motion_header(&ps, &frames, &frame_time, &frames_line);
    if (r == SK_OK && ps.nvalues && frames) {
        /* Every value takes at least two bytes (a digit and a separator; the last one only its digit). */
        uint64_t left = (uint64_t)(ps.end - ps.p);
        uint64_t need = (uint64_t)frames * ps.nvalues;
        if (need > (left + 1) / 2)
            r = fail(&ps, SK_ERR_PARSE, frames_line,
                     "Frames: %u of %u values need at least %llu bytes, the file has %llu left (truncated?)", frames,
                     ps.nvalues, (unsigned long long)(2 * need - 1), (unsigned long long)left);
        else if (!sk_size_mul((size_t)need, sizeof(double), &values_bytes) ||
                 !(values = sk_alloc(ps.alloc, values_bytes)) || !(ps.kind = sk_alloc(ps.alloc, ps.nvalues)))
            r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
        else
            for (uint32_t i = 0; i < ps.count; i++)
                for (uint32_t k = 0; k < ps.joints[i].nch; k++)
                    ps.kind[ps.joints[i].first_value + k] = ps.joints[i].ch[k];
    }
    if (r == SK_OK) r = read_frames(&ps, ps.nvalues ? frames : 0, frames_line, values);
    if (r == SK_OK) {
        char cname[256];
        clip_name_of(name, cname, sizeof cname);
        r = build_asset(&ps, cname, frames, frame_time, values, out);
    }
    sk_free(ps.alloc, values, values_bytes);
    sk_free(ps.alloc, ps.kind, ps.kind ? ps.nvalues : 0);
    sk_free(ps.alloc, ps.joints, (size_t)ps.cap * sizeof *ps.joints);
    return r;
}

sk_result sk_bvh_load_file(const char *path, const sk_bvh_options *opts, sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_bvh_load_file: out is NULL");
    *out = NULL;
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_bvh_load_file: path is NULL");
    uint64_t max = opts && opts->max_file_bytes ? opts->max_file_bytes : BVH_DEFAULT_MAX_BYTES;
    const sk_allocator *alloc = sk_allocator_or_default(opts ? &opts->allocator : NULL);
    const sk_file_io *io = opts ? &opts->file_io : NULL;
    void *buf = NULL;
    size_t size = 0;
    sk_result r = sk_file_read(io, path, max, alloc, &buf, &size, err); /* its message starts with the path */
    if (r != SK_OK) return r;
    r = sk_bvh_load_memory(buf, size, path, opts, out, err);
    sk_file_release(io, alloc, buf, size);
    return r;
}
