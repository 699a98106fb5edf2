// Fixed poses of the browser viewer compared with `skelanim render` (docs/web.md, "The test").
// The page is put in the pose and camera of the native command through its fixed view
// (window.skelanimView.pose); its canvas and the native PNG are turned into silhouettes, each
// against its own background, and compared: the bounding boxes, the overlap (intersection over
// union), and posed vertices projected through the camera, which must land on the character in
// both pictures. A pose of another time must fail the same comparison (the negative control).
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

// The limits (docs/web.md says why).
const BOX_PX = 2;        // each edge of the two silhouettes' bounding boxes, pixels
const MIN_IOU = 0.985;   // the silhouettes' intersection over union
const MARKER_PX = 1;     // a projected vertex is on the character when a pixel this close is
const MARKERS = 12;      // vertices projected per pose

// The viewer's clear colour (web/render.js BACKGROUND, 8-bit) and its silhouette: every pixel
// that differs from it (the viewer draws without antialiasing: a pixel is the character's
// colour or the background).
const WEB_BG = [33, 36, 43];
function webMask(rgba, w, h) {
  const m = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++)
    m[i] = Math.abs(rgba[4 * i] - WEB_BG[0]) > 2 || Math.abs(rgba[4 * i + 1] - WEB_BG[1]) > 2 ||
      Math.abs(rgba[4 * i + 2] - WEB_BG[2]) > 2 ? 1 : 0;
  return m;
}

// The native silhouette: the same pose drawn twice, over black and over white, without the
// ground grid. A pixel the character covers a fraction a of (4x multisampling) is
// a * colour + (1 - a) * background, so the two pictures differ there by (1 - a) * 255 in every
// channel: a pixel is the character's when they differ by less than half (a > 0.5, as a pixel
// of the viewer is covered when its centre is), whatever the character's colours.
function nativeMask(black, white, w, h) {
  const m = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) {
    let d = 0;
    for (let k = 0; k < 3; k++) d = Math.max(d, white[4 * i + k] - black[4 * i + k]);
    m[i] = d < 128 ? 1 : 0;
  }
  return m;
}

function box(m, w, h) {
  let n = 0, x0 = w, y0 = h, x1 = -1, y1 = -1;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (m[y * w + x]) {
        n++;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  return { n, x0, y0, x1, y1 };
}

// A point (pixels, y down, centres at +0.5) on the silhouette: a pixel within MARKER_PX of the
// one it falls in is covered.
function covered(m, w, h, p) {
  if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) return false;
  const cx = Math.floor(p[0]), cy = Math.floor(p[1]);
  for (let y = cy - MARKER_PX; y <= cy + MARKER_PX; y++)
    for (let x = cx - MARKER_PX; x <= cx + MARKER_PX; x++)
      if (x >= 0 && y >= 0 && x < w && y < h && m[y * w + x]) return true;
  return false;
}

// The comparison of a viewer silhouette a with a native one b and the projected vertices.
function compare(a, b, w, h, markers) {
  const ba = box(a, w, h), bb = box(b, w, h);
  let inter = 0, union = 0;
  for (let i = 0; i < w * h; i++) { inter += a[i] & b[i]; union += a[i] | b[i]; }
  const edge = Math.max(Math.abs(ba.x0 - bb.x0), Math.abs(ba.x1 - bb.x1), Math.abs(ba.y0 - bb.y0),
    Math.abs(ba.y1 - bb.y1));
  const iou = union ? inter / union : 0;
  const inA = markers.filter((p) => covered(a, w, h, p)).length, inB = markers.filter((p) => covered(b, w, h, p)).length;
  const ok = ba.n > 0 && bb.n > 0 && edge <= BOX_PX && iou >= MIN_IOU && inA === markers.length &&
    inB === markers.length;
  const text = `viewer box [${ba.x0},${ba.y0}]-[${ba.x1},${ba.y1}] ${ba.n} px, native [${bb.x0},${bb.y0}]-` +
    `[${bb.x1},${bb.y1}] ${bb.n} px: edges ${edge} px apart (limit ${BOX_PX}), IoU ${iou.toFixed(4)} ` +
    `(limit ${MIN_IOU}), vertices on the character ${inA} and ${inB} of ${markers.length}`;
  return { ok, edge, iou, inA, inB, text };
}

// In the page: a PNG (base64) decoded by the browser into RGBA bytes.
async function decodePng(page, file) {
  const b64 = fs.readFileSync(file).toString('base64');
  return page.evaluate(async (data) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + data;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    return { w: img.width, h: img.height, rgba: Array.from(g.getImageData(0, 0, img.width, img.height).data) };
  }, b64);
}

// `skelanim render` of the pose over black and over white: its silhouette.
async function nativeSilhouette(page, tool, tmp, file, clip, time, w, h) {
  const imgs = [];
  for (const [bg, name] of [['0,0,0', 'black'], ['1,1,1', 'white']]) {
    const out = path.join(tmp, `${name}.png`);
    execFileSync(tool, ['render', file, '--clip', String(clip), '--time', String(time), '--size', `${w}x${h}`,
      '--no-grid', '--background', bg, '--out', out], { stdio: 'ignore' });
    const img = await decodePng(page, out);
    if (img.w !== w || img.h !== h) throw new Error(`${out}: ${img.w}x${img.h}, expected ${w}x${h}`);
    imgs.push(img.rgba);
  }
  return nativeMask(imgs[0], imgs[1], w, h);
}

// cases: [{ name, load: async () => {...}, file, clip, times: [t1, t2] }]. For each case and
// time the viewer's pose is compared with the native one; then the viewer's first pose with the
// native second one, which must fail. Returns the number of poses compared that matched.
async function comparePoses(page, tool, tmp, cases, check, shot) {
  const W = 480, H = 480;
  let matched = 0, total = 0;
  for (const c of cases) {
    await c.load();
    const natives = [], views = [];
    for (const t of c.times) {
      total++;
      const got = await page.evaluate((o) => {
        try {
          return window.skelanimView.pose(o);
        } catch (e) {
          return { error: e.message };
        }
      }, { clip: c.clip, time: t, width: W, height: H });
      if (got.error) { check(false, `${c.name} t=${t}: the fixed view: ${got.error}`); continue; }
      const rgba = await shot();
      const markers = await page.evaluate((n) => window.skelanimView.markers(n), MARKERS);
      const a = webMask(rgba, W, H), b = await nativeSilhouette(page, tool, tmp, c.file, c.clip, t, W, H);
      const r = compare(a, b, W, H, markers);
      check(r.ok && got.width === W && Math.abs(got.time - t) < 1e-6, `${c.name} clip ${c.clip} t=${t} (the page's: ` +
        `${got.clip}, ${got.time.toFixed(3)} s, ${got.width}x${got.height}): ${r.text}`);
      if (r.ok) matched++;
      natives.push(b);
      views.push({ a, markers });
    }
    if (natives.length === 2) { // the negative control: the other time's render must not match
      const r = compare(views[0].a, natives[1], W, H, views[0].markers);
      check(!r.ok, `${c.name}: the viewer at t=${c.times[0]} against skelanim render at t=${c.times[1]} fails ` +
        `the comparison: ${r.text}`);
    }
  }
  return { matched, total };
}

module.exports = { comparePoses, BOX_PX, MIN_IOU, MARKER_PX };
