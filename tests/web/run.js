// The browser viewer in a real browser (docs/web.md): Debian's chromium,
// headless, WebGL2 in software (SwiftShader), driven over the DevTools
// protocol by puppeteer-core, against python3 -m http.server serving the
// build folder. The references are independent of the page: clip counts
// and names from the native tool (`skelanim info`), the character found in
// the canvas's pixels by their difference from the background.
//
//   node tests/web/run.js BUILD_WEB_DIR SKELANIM_BINARY
//   node tests/web/run.js BUILD_WEB_DIR --screenshot FILE.png   (only the README's picture:
//        the whole page, the mannequin mid-stride; no checks)
//
// Fixed poses are compared with `skelanim render` of the same pose, camera and size: the
// silhouettes' bounding boxes, their overlap, and posed vertices projected into both
// (docs/web.md, "The test", for the limits and why).
//
// Env: CHROMIUM (default /usr/bin/chromium), GLTF_DIR (default
// ../shared/assets/gltf from the checkout). Under CI=true a missing browser,
// build, tool or asset folder is a failure; otherwise the test is skipped
// (exit 77).
'use strict';
const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const http = require('http');
const { comparePoses } = require('./poses.js');

const root = path.resolve(__dirname, '../..');
const argv = process.argv.slice(2);
const shotAt = argv.indexOf('--screenshot');
const screenshot = shotAt >= 0 ? path.resolve(argv.splice(shotAt, 2)[1] || '') : null;
const webDir = path.resolve(argv[0] || path.join(root, 'build-web'));
const tool = path.resolve(argv[1] || path.join(root, 'build/skelanim'));
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const gltfDir = process.env.GLTF_DIR || path.resolve(root, '../shared/assets/gltf');
const CI = process.env.CI === 'true';

let failures = 0, checks = 0;
function check(ok, what) {
  checks++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}
function missing(what) {
  console.log(`${CI ? 'FAIL' : 'SKIP'}: ${what}`);
  process.exit(CI ? 1 : 77);
}

const cesiumMan = path.join(gltfDir, 'CesiumMan/CesiumMan.glb');
for (const [p, what] of [[chromium, 'chromium'], [path.join(webDir, 'index.html'), 'the web build'],
  [path.join(webDir, 'skelanim.wasm'), 'the web build'], [tool, 'the skelanim tool'], [gltfDir, 'the glTF assets'],
  [cesiumMan, 'CesiumMan']])
  if (!fs.existsSync(p) && !(screenshot && (p === tool || p === gltfDir || p === cesiumMan)))
    missing(`${what} not found at ${p}`);

// The native tool's view of a file: clip names in order.
function nativeClips(file) {
  const out = execFileSync(tool, ['info', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const m = out.match(/^clips: (\d+)$/m);
  const names = [...out.matchAll(/^ {2}clip \d+ "(.*)": /gm)].map((x) => x[1]);
  return { count: m ? +m[1] : 0, names };
}

function glbFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...glbFiles(p));
    else if (e.name.endsWith('.glb')) out.push(p);
  }
  return out.sort();
}

function get(url) {
  return new Promise((resolve) => {
    http.get(url, (r) => { r.resume(); resolve(r.statusCode); }).on('error', () => resolve(0));
  });
}

async function serve() {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', webDir],
    { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (await get(`http://127.0.0.1:${port}/index.html`) === 200) return { server, url: `http://127.0.0.1:${port}/` };
    await new Promise((r) => setTimeout(r, 100));
  }
  server.kill();
  throw new Error('the file server did not start');
}

// In the page: the canvas's pixels (read through a 2D canvas, not the viewer).
function snapshot() {
  const c = document.getElementById('view');
  const t = document.createElement('canvas');
  t.width = c.width; t.height = c.height;
  const g = t.getContext('2d');
  g.drawImage(c, 0, 0);
  return Array.from(g.getImageData(0, 0, c.width, c.height).data);
}

const BG = [33, 36, 43]; // the clear colour, 8-bit
const isBg = (p, i) => Math.abs(p[i] - BG[0]) <= 2 && Math.abs(p[i + 1] - BG[1]) <= 2 && Math.abs(p[i + 2] - BG[2]) <= 2;
function foreground(p, w) {
  let n = 0, x0 = 1e9, x1 = -1, y0 = 1e9, y1 = -1;
  for (let i = 0; i < p.length; i += 4) {
    if (isBg(p, i)) continue;
    n++;
    const x = (i / 4) % w, y = Math.floor(i / 4 / w);
    x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
  }
  return { n, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}
function differing(a, b) {
  let n = 0;
  for (let i = 0; i < a.length; i += 4)
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 24) n++;
  return n;
}
function yellow(p) {
  let n = 0;
  for (let i = 0; i < p.length; i += 4) if (p[i] > 220 && p[i + 1] > 170 && p[i + 2] < 60) n++;
  return n;
}

// The README's picture: the whole page (the panel and the 800 x 600 canvas), the mannequin's
// walk paused mid-stride in the fixed view (framed as `skelanim render` frames it), with the
// skeleton overlay.
const SHOT_TIME = 0.6;
async function takeScreenshot(page, wait) {
  await page.setViewport({ width: 1100, height: 600 });
  await page.evaluate((t) => window.skelanimView.pose({ clip: 'walk', time: t, width: 800, height: 600 }), SHOT_TIME);
  await page.click('#skeleton');
  await wait(10);
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`wrote ${screenshot} (the mannequin's walk at ${SHOT_TIME} s)`);
}

async function main() {
  const puppeteer = require('puppeteer-core');
  const { server, url } = await serve();
  const browser = await puppeteer.launch({
    executablePath: chromium, headless: true,
    args: ['--headless', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox',
      '--window-size=1200,700'],
  });
  const errors = [];
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 700 });
    page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
    page.on('pageerror', (e) => errors.push('page: ' + e.message));
    page.on('requestfailed', (r) => errors.push('request: ' + r.url()));
    const t0 = Date.now();
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => document.body.dataset.ready === '1', { timeout: 60000 });
    console.log(`page ready in ${Date.now() - t0} ms`);
    const frames = () => page.$eval('#frames', (e) => +e.textContent);
    const wait = async (n) => { const f = await frames(); await page.waitForFunction((k) => +document.getElementById('frames').textContent >= k, { timeout: 60000 }, f + n); };
    const shot = async () => { await wait(2); return page.evaluate(snapshot); };
    if (screenshot) {
      await takeScreenshot(page, wait);
      if (errors.length) throw new Error(errors.join(' | '));
      return;
    }
    const W = await page.$eval('#view', (c) => c.width), H = await page.$eval('#view', (c) => c.height);

    const gl = await page.evaluate(() => {
      const g = document.getElementById('view').getContext('webgl2');
      return g instanceof WebGL2RenderingContext ? g.getParameter(g.VERSION) : null;
    });
    check(!!gl, `WebGL2 context (${gl})`);

    // The mannequin's clips, as the library lists them natively.
    const man = nativeClips('@mannequin');
    const listed = await page.$$eval('#clip option', (o) => o.map((x) => x.textContent.replace(/ \([\d.]+ s\)$/, '')));
    check(man.count === 7 && listed.length === man.count, `mannequin: ${listed.length} clips listed, skelanim info says ${man.count}`);
    check(JSON.stringify(listed) === JSON.stringify(man.names), `mannequin: clip names ${listed.join(', ')}`);

    // Play the walk for 30 frames, pause: the character is in the picture.
    const walk = man.names.indexOf('walk');
    await page.select('#clip', String(walk));
    await wait(30);
    await page.click('#play');
    const a = await shot();
    const fg = foreground(a, W);
    check(fg.n > 0.01 * W * H && fg.n < 0.6 * W * H, `silhouette: ${fg.n} of ${W * H} pixels differ from the background`);
    check(fg.h > 0.3 * H && fg.h > fg.w, `silhouette: ${fg.w} x ${fg.h} pixels, standing (taller than wide)`);
    const still = await shot();
    check(differing(a, still) === 0, 'paused: two frames are the same picture');

    // Scrubbing moves the character.
    const dur = await page.$eval('#time', (e) => +e.max);
    const scrub = async (t) => page.$eval('#time', (e, v) => { e.value = v; e.dispatchEvent(new Event('input')); }, t);
    await scrub(0.1 * dur);
    const s1 = await shot();
    await scrub(0.6 * dur);
    const s2 = await shot();
    const moved = differing(s1, s2);
    check(moved > 500, `scrubbing ${(0.1 * dur).toFixed(2)} s -> ${(0.6 * dur).toFixed(2)} s changes ${moved} pixels`);

    // CPU skinning (the library's) draws what the vertex shader draws.
    await page.click('#cpu');
    const c2 = await shot();
    const cpuDiff = differing(s2, c2), fg2 = foreground(s2, W).n;
    check(cpuDiff < 0.02 * fg2, `CPU skinning vs GPU skinning: ${cpuDiff} of ${fg2} character pixels differ`);
    await page.click('#cpu');

    // The skeleton overlay: yellow lines appear.
    const y0 = yellow(s2);
    await page.click('#skeleton');
    const k = await shot();
    check(y0 === 0 && yellow(k) > 100, `skeleton overlay: ${y0} -> ${yellow(k)} yellow pixels`);
    await page.click('#skeleton');

    // Blending walk with run at weight 1 changes the pose.
    await page.select('#clip2', String(man.names.indexOf('run')));
    await page.$eval('#blend', (e) => { e.value = 1; e.dispatchEvent(new Event('input')); });
    const b1 = await shot();
    check(differing(s2, b1) > 500, `blend walk -> run at 1: ${differing(s2, b1)} pixels change`);
    await page.select('#clip2', '-1');

    // The walkers on a terrain.
    await page.click('#play');
    for (const walker of ['locomotor', 'procedural']) {
      await page.select('#terrain', '1');
      await page.select('#walk', walker);
      await wait(20);
      const w1 = await shot();
      await wait(20);
      const w2 = await shot();
      const st = await page.$eval('#status', (e) => e.textContent);
      check(st === '' && foreground(w1, W).n > 0.05 * W * H && differing(w1, w2) > 200,
        `walker ${walker}: ${foreground(w1, W).n} pixels drawn, ${differing(w1, w2)} change in 20 frames ${st}`);
    }
    await page.select('#walk', 'off');

    // Every .glb of the asset folder loads with the clips the native tool lists.
    const files = glbFiles(gltfDir);
    let loaded = 0;
    for (const f of files) {
      const ref = nativeClips(f);
      const input = await page.$('#file');
      await input.uploadFile(f);
      const name = path.basename(f);
      await page.waitForFunction((n) => document.getElementById('info').textContent.startsWith(n + ':') ||
        document.getElementById('status').textContent !== '', { timeout: 30000 }, name);
      const st = await page.$eval('#status', (e) => e.textContent);
      const n = await page.$$eval('#clip option', (o) => o.length);
      check(st === '' && n === ref.count, `${path.relative(gltfDir, f)}: ${n} clips, skelanim info says ${ref.count} ${st}`);
      if (st === '' && n === ref.count) loaded++;
      await page.$eval('#file', (e) => { e.value = ''; });
    }
    check(files.length > 0 && loaded === files.length, `${loaded} of ${files.length} .glb files checked`);

    // The other formats, written by the native tool from the mannequin: a .glb, a .bvh (one
    // clip) and .skc files (the CRC-32 in them is zlib's; the page's reader checks it).
    const tmp = fs.mkdtempSync(path.join(require('os').tmpdir(), 'skelanim-web-'));
    try {
      execFileSync(tool, ['convert', '@mannequin', path.join(tmp, 'walk.bvh'), '--clip', 'walk'], { stdio: 'ignore' });
      execFileSync(tool, ['export-mannequin', path.join(tmp, 'mannequin.glb')], { stdio: 'ignore' });
      execFileSync(tool, ['compress', path.join(tmp, 'mannequin.glb'), '-o', tmp], { stdio: 'ignore' });
      const made = fs.readdirSync(tmp).filter((f) => /\.(bvh|skc|glb)$/.test(f)).sort().map((f) => path.join(tmp, f));
      let ok = 0;
      for (const f of made) {
        const ref = nativeClips(f);
        await (await page.$('#file')).uploadFile(f);
        const name = path.basename(f);
        await page.waitForFunction((n) => document.getElementById('info').textContent.startsWith(n + ':') ||
          document.getElementById('status').textContent !== '', { timeout: 30000 }, name);
        const st = await page.$eval('#status', (e) => e.textContent);
        const names = await page.$$eval('#clip option', (o) => o.map((x) => x.textContent.replace(/ \([\d.]+ s\)$/, '')));
        const good = st === '' && ref.count > 0 && JSON.stringify(names) === JSON.stringify(ref.names);
        check(good, `${name}: clips ${names.join(', ')}; skelanim info: ${ref.names.join(', ')} ${st}`);
        if (good) ok++;
        await page.$eval('#file', (e) => { e.value = ''; });
      }
      check(made.some((f) => f.endsWith('.bvh')) && made.some((f) => f.endsWith('.skc')) && ok === made.length,
        `${ok} of ${made.length} .glb/.bvh/.skc files written by the native tool checked`);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    // After the files: a picture still (the last file drawn, no error).
    await wait(5);

    // Fixed poses against `skelanim render` of the same pose, camera and size (tests/web/poses.js).
    const loadFile = async (f) => {
      await (await page.$('#file')).uploadFile(f);
      await page.waitForFunction((n) => document.getElementById('info').textContent.startsWith(n + ':') ||
        document.getElementById('status').textContent !== '', { timeout: 30000 }, path.basename(f));
      await page.$eval('#file', (e) => { e.value = ''; });
    };
    const ptmp = fs.mkdtempSync(path.join(require('os').tmpdir(), 'skelanim-web-'));
    try {
      const cases = [
        { name: 'mannequin', file: '@mannequin', clip: 'walk', times: [0.25, 0.75], load: () => page.click('#mannequin') },
        { name: 'CesiumMan', file: cesiumMan, clip: 0, times: [0.5, 1.5], load: () => loadFile(cesiumMan) },
      ];
      const { matched, total } = await comparePoses(page, tool, ptmp, cases, check, shot);
      check(total === 4 && matched === total, `${matched} of ${total} fixed poses match skelanim render (4 expected)`);
      // The same fixed view from the address bar: the same picture.
      await page.click('#mannequin');
      await page.evaluate(() => window.skelanimView.pose({ clip: 'walk', time: 0.25, width: 320, height: 240 }));
      const byHook = await shot();
      const p2 = await browser.newPage();
      p2.on('pageerror', (e) => errors.push('page: ' + e.message));
      await p2.goto(url + '?clip=walk&time=0.25&size=320x240', { waitUntil: 'load' });
      await p2.waitForFunction(() => document.body.dataset.ready === '1', { timeout: 60000 });
      await p2.waitForFunction(() => +document.getElementById('frames').textContent >= 3, { timeout: 60000 });
      const byUrl = await p2.evaluate(snapshot), st2 = await p2.$eval('#status', (e) => e.textContent);
      await p2.goto(url + '?clip=nosuchclip', { waitUntil: 'load' });
      await p2.waitForFunction(() => document.body.dataset.ready === '1', { timeout: 60000 });
      const bad = await p2.$eval('#status', (e) => e.textContent);
      await p2.close();
      check(st2 === '' && byUrl.length === 320 * 240 * 4 && byHook.length === byUrl.length &&
        differing(byHook, byUrl) === 0 && foreground(byUrl, 320).n > 1000,
      `?clip=walk&time=0.25&size=320x240 draws what skelanimView.pose draws (${foreground(byUrl, 320).n} character pixels) ${st2}`);
      check(/no clip 'nosuchclip'/.test(bad), `?clip=nosuchclip: the page says "${bad}"`);
    } finally {
      fs.rmSync(ptmp, { recursive: true, force: true });
    }
    check(errors.length === 0, `no console or page errors${errors.length ? ': ' + errors.join(' | ') : ''}`);
  } finally {
    await browser.close();
    server.kill();
  }
  console.log(`${checks - failures} of ${checks} checks passed`);
  process.exit(failures ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
