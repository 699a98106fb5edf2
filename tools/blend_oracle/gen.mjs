#!/usr/bin/env node
// gen.mjs — three.js reference data for skelanim's weighted blending of two, three and four clips.
//
// Loads a .glb with three's GLTFLoader (the file must have no images; tests/data/blend/mannequin.glb
// is the built-in mannequin written by skelanim's .glb writer, frozen here so the reference stays
// valid if the mannequin's clips change), plays every case's clips at once on one
// THREE.AnimationMixer (LoopRepeat, NormalAnimationBlendMode, fixed effective weights, play() in
// the listed order) and records, at fixed and seeded random mixer times, each node's local TRS and
// world matrix. three's blending rules (three r187, src/animation/PropertyMixer.js):
//   per property (node.position/quaternion/scale) only the actions whose clip animates it
//   contribute; acc = x_1, W = w_1; then W += w_k, acc = mix(acc, x_k, w_k / W) with lerp for
//   vectors and Quaternion.slerpFlat for rotations; after all actions, if W < 1 acc = mix(acc,
//   original (file) value, 1 - W). So vectors get the weighted mean with rest fill (W < 1) or
//   normalisation (W >= 1), and rotations a sequential slerp that depends on the play order.
// skelanim reproduces this exactly with sk_blend_poses(..., rotation = SK_BLEND_SLERP) and per-clip
// channel masks (sk_clip_channel_mask); its default nlerp blend matches translations/scales
// exactly and rotations only approximately (the test reports the difference).
//
// Setup: (cd tools/blend_oracle && npm ci)   — three 0.187.0 pinned in package.json/package-lock.json
// Usage: node tools/blend_oracle/gen.mjs tests/data/blend/mannequin.glb tests/data/blend/oracle.mannequin.json
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node gen.mjs IN.glb OUT.json');
  process.exit(2);
}

// Cases by clip name: [name, weight] in play (accumulation) order.
const CASES = [
  { id: 'two_walk_run_30_70', clips: [['walk', 0.3], ['run', 0.7]] },
  { id: 'two_idle_crouch_50_50', clips: [['idle', 0.5], ['crouch', 0.5]] },
  { id: 'three_idle_walk_run_20_30_50', clips: [['idle', 0.2], ['walk', 0.3], ['run', 0.5]] },
  { id: 'three_run_walk_idle_50_30_20', clips: [['run', 0.5], ['walk', 0.3], ['idle', 0.2]] },
  { id: 'three_walk_run_crouch_25_25_25_restfill', clips: [['walk', 0.25], ['run', 0.25], ['crouch', 0.25]] },
  { id: 'three_crouch_walk_idle_60_50_40_over1', clips: [['crouch', 0.6], ['walk', 0.5], ['idle', 0.4]] },
  { id: 'four_10_20_30_40', clips: [['idle', 0.1], ['walk', 0.2], ['run', 0.3], ['crouch', 0.4]] },
];
const FIXED = [0, 0.37, 1.1, 2.9];
function mulberry32(a) {
  return () => { a |= 0; a = (a + 0x6d2b79f5) | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}
const rand = mulberry32(20250187);
const TIMES = [...FIXED, ...Array.from({ length: 4 }, () => rand() * 4)];

const bytes = fs.readFileSync(input);
const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
const gltf = await new Promise((res, rej) => new GLTFLoader().parse(ab, '', res, rej));
const parser = gltf.parser, scene = gltf.scene, json = parser.json;
const nodeObj = [];
scene.traverse((o) => { const a = parser.associations.get(o); if (a && a.nodes !== undefined && nodeObj[a.nodes] === undefined) nodeObj[a.nodes] = o; });
const rest = nodeObj.map((o) => ({ p: o.position.clone(), q: o.quaternion.clone(), s: o.scale.clone() }));
function restoreRest() {
  nodeObj.forEach((o, i) => { o.position.copy(rest[i].p); o.quaternion.copy(rest[i].q); o.scale.copy(rest[i].s); });
  scene.updateMatrixWorld(true);
}
const clipByName = new Map(gltf.animations.map((c, i) => [c.name, { clip: c, index: i }]));
const r9 = (v) => (v === 0 ? 0 : +v.toPrecision(9));
const arr = (a) => Array.from(a, r9);

const cases = [];
for (const cs of CASES) {
  const samples = [];
  for (const t of TIMES) {
    restoreRest();
    const mixer = new THREE.AnimationMixer(scene);
    const clipsOut = [];
    for (const [name, w] of cs.clips) {
      const c = clipByName.get(name);
      if (!c) throw new Error(`${input}: no clip named ${name}`);
      const action = mixer.clipAction(c.clip);
      action.setLoop(THREE.LoopRepeat, Infinity);
      action.setEffectiveWeight(w);
      action.play();
      clipsOut.push({ action, name, index: c.index, weight: w });
    }
    mixer.setTime(t);
    scene.updateMatrixWorld(true);
    samples.push({
      time: t,
      clipTimes: clipsOut.map((c) => c.action.time),
      nodes: nodeObj.map((o, i) => ({ node: i, t: arr(o.position.toArray()), r: arr(o.quaternion.toArray()), s: arr(o.scale.toArray()), world: arr(o.matrixWorld.elements) })),
    });
    mixer.stopAllAction();
    mixer.uncacheRoot(scene);
  }
  cases.push({ id: cs.id, clips: cs.clips.map(([name, w]) => ({ name, index: clipByName.get(name).index, weight: w })), samples });
}

const threeVersion = JSON.parse(fs.readFileSync(new URL('./node_modules/three/package.json', import.meta.url), 'utf8')).version;
const out = {
  header: {
    format: 'skelanim three.js multi-clip blend oracle v1',
    asset: { file: path.basename(input), bytes: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex') },
    oracle: { tool: 'tools/blend_oracle/gen.mjs', three: threeVersion, node: process.version },
    setup: 'per sample: nodes reset to their file TRS; new AnimationMixer(scene); for each case clip in order: clipAction(clip).setLoop(LoopRepeat, Infinity).setEffectiveWeight(w).play(); mixer.setTime(time); scene.updateMatrixWorld(true). Each action wraps its own clip: clipTime_i = time mod duration_i.',
    blending: 'three r187 PropertyMixer: per property only actions animating it contribute; acc = x_1, W = w_1; W += w_k, acc = mix(acc, x_k, w_k/W) (lerp for position/scale, Quaternion.slerpFlat for quaternion); if W < 1: acc = mix(acc, file value, 1 - W); W >= 1: nothing more (normalised).',
    values: 'nodes[i] is glTF node i: t, r (x,y,z,w), s local after blending; world = column-major matrixWorld (scene root identity). 9 significant digits.',
    tolerance: 'skelanim float32 vs three float64: 1e-4 absolute on t, s, r (up to sign) and world matrices (the issue asks for 1e-4).',
    times: TIMES,
  },
  cases,
};
fs.writeFileSync(output, JSON.stringify(out) + '\n');
console.error(`wrote ${output}: ${cases.length} cases x ${TIMES.length} times, ${nodeObj.length} nodes`);
