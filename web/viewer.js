// The browser viewer's page logic (docs/web.md): the WebAssembly module
// (skelanim.js, built from web/*.c and the libraries), the controls, file
// opening and dropping, and the frame loop with its timing.
import { Renderer } from './render.js';

const $ = (id) => document.getElementById(id);
const status = (msg, bad) => { $('status').textContent = msg; $('status').className = bad ? 'bad' : ''; };

const M = await createSkelanim(); // eslint-disable-line no-undef
const app = M._web_app_create();
const renderer = new Renderer($('view'));
const str = (ptr) => M.UTF8ToString(ptr);
const f32 = (ptr, n) => M.HEAPF32.slice(ptr >> 2, (ptr >> 2) + n);
const u32 = (ptr, n) => M.HEAPU32.slice(ptr >> 2, (ptr >> 2) + n);
const u16 = (ptr, n) => M.HEAPU16.slice(ptr >> 1, (ptr >> 1) + n);

let playing = true, radius = 1, frames = 0, lastTs = 0, avgMs = 0, avgLib = 0;

function cString(s) {
  const n = M.lengthBytesUTF8(s) + 1, p = M._malloc(n);
  M.stringToUTF8(s, p, n);
  return p;
}

// Loads bytes (a Uint8Array; null: the mannequin), then fills the page from the library.
function load(bytes, name) {
  stopWalk();
  let ok;
  if (!bytes) {
    ok = M._web_load(app, 0, 0, 0);
  } else {
    const p = M._malloc(Math.max(bytes.length, 1)), np = cString(name);
    M.HEAPU8.set(bytes, p);
    ok = M._web_load(app, p, bytes.length, np);
    M._free(p); M._free(np);
  }
  if (!ok) {
    status(str(M._web_error(app)), true);
    renderer.setMeshes([]);
    fillClips();
    return false;
  }
  const meshes = [];
  for (let i = 0, n = M._web_draw_count(app); i < n; i++) {
    const v = M._web_draw_vertex_count(app, i), k = M._web_draw_index_count(app, i);
    const d = (w) => M._web_draw_data(app, i, w);
    const rigid = !M._web_draw_skinned(app, i);
    meshes.push({ positions: f32(d(0), v * 3), normals: f32(d(1), v * 3), joints: u16(d(2), v * 4),
      weights: f32(d(3), v * 4), indices: u32(d(4), k), color: f32(d(5), 4),
      paletteOffset: M._web_draw_palette_offset(app, i), rigid });
  }
  renderer.setMeshes(meshes);
  renderer.fixed = null;
  const b = f32(M._web_bounds(app), 6);
  radius = Math.max(Math.hypot(b[3] - b[0], b[4] - b[1], b[5] - b[2]) / 2, 0.01);
  fillClips();
  $('walk').disabled = !M._web_is_mannequin(app);
  $('info').textContent = `${name || 'mannequin'}: ${M._web_joint_count(app)} joints, ${meshes.length} primitives, ` +
    `${M._web_clip_count(app)} clips`;
  status('');
  applySettings();
  return true;
}

function fillClips() {
  const a = $('clip'), b = $('clip2');
  a.innerHTML = ''; b.innerHTML = '<option value="-1">(none)</option>';
  for (let i = 0, n = M._web_clip_count(app); i < n; i++) {
    const name = str(M._web_clip_name(app, i)), dur = M._web_clip_duration(app, i).toFixed(2);
    a.add(new Option(`${name} (${dur} s)`, i));
    b.add(new Option(name, i));
  }
  setClips();
}

function setClips() {
  M._web_set_clips(app, $('clip').value === '' ? -1 : +$('clip').value, +$('clip2').value);
  const i = +$('clip').value;
  $('time').max = M._web_clip_count(app) ? M._web_clip_duration(app, i) : 0;
}

function applySettings() {
  M._web_set_speed(app, +$('speed').value);
  M._web_set_blend(app, +$('blend').value);
  M._web_set_cpu_skinning(app, $('cpu').checked ? 1 : 0);
  M._web_set_paused(app, playing ? 0 : 1);
  $('speedv').textContent = (+$('speed').value).toFixed(2) + 'x';
  $('blendv').textContent = (+$('blend').value).toFixed(2);
}

function startWalk() {
  const kind = $('walk').value;
  if (kind === 'off') return stopWalk();
  if (!M._web_walk_start(app, kind === 'procedural' ? 1 : 0, +$('terrain').value)) {
    status(str(M._web_error(app)), true);
    $('walk').value = 'off';
    return;
  }
  M._web_walk_set_speed(app, +$('walkspeed').value);
  const nv = M._web_terrain_vertex_count(app), ni = M._web_terrain_index_count(app);
  renderer.setTerrain(f32(M._web_terrain_vertices(app), nv * 6), u32(M._web_terrain_indices(app), ni));
  status('');
}

function stopWalk() {
  if (M._web_walking(app)) M._web_walk_stop(app);
  renderer.setTerrain(null);
  $('walk').value = 'off';
}

// One frame: the library's update (timed), the GPU upload and draw.
function frame(ts) {
  const dt = lastTs ? Math.min((ts - lastTs) / 1000, 0.25) : 0;
  lastTs = ts;
  const t0 = performance.now();
  const walking = M._web_walking(app) !== 0;
  let ok = M._web_draw_count(app) > 0 || M._web_joint_count(app) > 0;
  if (ok && (!walking || playing)) ok = M._web_frame(app, playing ? dt : 0) === 1;
  const t1 = performance.now();
  if (ok) {
    const n = M._web_palette_count(app);
    renderer.setPalette(f32(M._web_palette(app), n * 16), n);
    const cpu = $('cpu').checked;
    for (let i = 0; i < renderer.draws.length; i++) {
      const v = M._web_draw_vertex_count(app, i), p = M._web_draw_data(app, i, 6), q = M._web_draw_data(app, i, 7);
      renderer.setSkinned(i, cpu && p ? f32(p, v * 3) : null, cpu && q ? f32(q, v * 3) : null);
    }
    // A file without meshes (.bvh, .skc) is drawn as its skeleton.
    const overlay = $('skeleton').checked || renderer.draws.length === 0;
    if (overlay) renderer.setLines(f32(M._web_segments(app), M._web_segment_count(app) * 6));
    renderer.draw(f32(M._web_focus(app), 3), walking ? 1.2 : radius, overlay);
    if (!walking && !$('time').matches(':active')) $('time').value = M._web_time(app);
    $('timev').textContent = M._web_time(app).toFixed(3) + ' s';
  } else if (M._web_joint_count(app)) {
    status(str(M._web_error(app)), true);
  }
  const t2 = performance.now();
  avgMs += ((t2 - t0) - avgMs) * 0.1;
  avgLib += ((t1 - t0) - avgLib) * 0.1;
  frames++;
  $('frames').textContent = frames;
  if (frames % 10 === 0)
    $('frametime').textContent = `frame ${avgMs.toFixed(2)} ms (library ${avgLib.toFixed(2)} ms), ` +
      `${dt > 0 ? (1 / dt).toFixed(0) : '-'} fps`;
  requestAnimationFrame(frame);
}

async function openFile(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  load(bytes, file.name);
}

$('file').addEventListener('change', (e) => { if (e.target.files[0]) openFile(e.target.files[0]); });
$('mannequin').addEventListener('click', () => load(null, null));
document.body.addEventListener('dragover', (e) => e.preventDefault());
document.body.addEventListener('drop', (e) => {
  e.preventDefault();
  if (e.dataTransfer.files[0]) openFile(e.dataTransfer.files[0]);
});
$('clip').addEventListener('change', setClips);
$('clip2').addEventListener('change', setClips);
$('play').addEventListener('click', () => {
  playing = !playing;
  $('play').textContent = playing ? 'pause' : 'play';
  applySettings();
});
$('time').addEventListener('input', () => M._web_seek(app, +$('time').value));
for (const id of ['speed', 'blend', 'cpu']) $(id).addEventListener('input', applySettings);
$('walk').addEventListener('change', startWalk);
$('terrain').addEventListener('change', () => { if ($('walk').value !== 'off') startWalk(); });
$('walkspeed').addEventListener('input', () => {
  M._web_walk_set_speed(app, +$('walkspeed').value);
  $('walkspeedv').textContent = (+$('walkspeed').value).toFixed(1) + ' m/s';
});
const canvas = $('view');
let drag = null;
canvas.addEventListener('pointerdown', (e) => { drag = [e.clientX, e.clientY]; renderer.fixed = null; });
window.addEventListener('pointerup', () => { drag = null; });
window.addEventListener('pointermove', (e) => {
  if (!drag) return;
  renderer.yaw -= (e.clientX - drag[0]) * 0.01;
  renderer.pitch = Math.max(-1.4, Math.min(1.4, renderer.pitch + (e.clientY - drag[1]) * 0.01));
  drag = [e.clientX, e.clientY];
});
canvas.addEventListener('wheel', (e) => {
  e.preventDefault();
  renderer.fixed = null;
  renderer.distance = Math.max(0.5, Math.min(20, renderer.distance * Math.exp(e.deltaY * 0.001)));
}, { passive: false });

// The fixed view: the pose and camera of `skelanim render FILE --clip C --time T --size WxH
// --azimuth AZ --elevation EL` (its defaults: the first clip, 0 s, 480x480, 35, 12), paused.
// The camera is framed by the renderer's own code (render/camera.c, in the module): the
// bounds of the posed vertices, 35 degrees of vertical field of view. The canvas takes the
// size. Dragging or the wheel goes back to the orbit camera. Throws on a bad argument.
function pose(o = {}) {
  const n = M._web_clip_count(app);
  let clip = n ? 0 : -1;
  if (o.clip !== undefined && o.clip !== null && o.clip !== '') {
    const c = String(o.clip);
    let found = c === 'none' ? -1 : -2; // as skelanim render: none, a name, an index
    for (let i = 0; i < n && found < -1; i++) if (str(M._web_clip_name(app, i)) === c) found = i;
    if (found < -1 && /^\d+$/.test(c) && +c < n) found = +c;
    if (found < -1) throw new Error(`no clip '${c}' (${n} clips)`);
    clip = found;
  }
  const num = (v, d, what, lo, hi) => {
    const x = v === undefined || v === null || v === '' ? d : Number(v);
    if (!Number.isFinite(x) || x < lo || x > hi) throw new Error(`${what} ${v}: expected a number from ${lo} to ${hi}`);
    return x;
  };
  const time = num(o.time, 0, 'time', -1e6, 1e6), az = num(o.az, 35, 'az', -3600, 3600);
  const el = num(o.el, 12, 'el', -89.9, 89.9);
  const w = Math.round(num(o.width, 480, 'width', 16, 4096)), h = Math.round(num(o.height, 480, 'height', 16, 4096));
  stopWalk();
  playing = false;
  $('play').textContent = 'play';
  $('clip2').value = '-1';
  $('blend').value = 0;
  if (clip >= 0) $('clip').value = String(clip);
  M._web_set_clips(app, clip, -1);
  $('time').max = clip >= 0 ? M._web_clip_duration(app, clip) : 0;
  applySettings();
  M._web_seek(app, time);
  if (M._web_frame(app, 0) !== 1) throw new Error(str(M._web_error(app)));
  canvas.width = w; canvas.height = h;
  canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
  const vp = M._web_view_frame(app, az, el, w, h);
  if (!vp) throw new Error('the view could not be framed');
  renderer.fixed = f32(vp, 16);
  return { clip: clip >= 0 ? str(M._web_clip_name(app, clip)) : 'none', time: M._web_time(app), width: w, height: h };
}

// count posed vertices (spread over the meshes) projected through the fixed view: [[x, y], ...]
// in canvas pixels (y down, pixel centres at +0.5).
function markers(count) {
  const p = M._web_view_markers(app, count);
  if (!p) throw new Error('no fixed view or no mesh');
  const m = f32(p, 2 * count);
  return Array.from({ length: count }, (_, k) => [m[2 * k], m[2 * k + 1]]);
}

window.skelanimView = { pose, markers };

// URL parameters: ?file=URL (fetched, relative to the page; none: the mannequin), and any of
// clip, time, az, el, size=WxH for the fixed view.
async function fromUrl() {
  const q = new URLSearchParams(location.search);
  if (q.has('file')) {
    const r = await fetch(q.get('file'));
    if (!r.ok) throw new Error(`${q.get('file')}: HTTP ${r.status}`);
    if (!load(new Uint8Array(await r.arrayBuffer()), q.get('file').split('/').pop())) return;
  }
  if (['clip', 'time', 'az', 'el', 'size'].some((k) => q.has(k))) {
    const size = (q.get('size') || '480x480').split('x');
    pose({ clip: q.get('clip'), time: q.get('time'), az: q.get('az'), el: q.get('el'), width: size[0], height: size[1] });
  }
}

load(null, null);
try {
  await fromUrl();
} catch (e) {
  status(e.message, true);
}
document.body.dataset.ready = '1';
requestAnimationFrame(frame);
