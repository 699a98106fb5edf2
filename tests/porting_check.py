#!/usr/bin/env python3
"""Checks of the porting guides' programs (examples/porting/*.c), run by tests/cli_porting_*.sh.

  porting_check.py page PAGE.md PROGRAM.c
      the page's ```c block that opens like the file is the file, line for line
  porting_check.py ozz|threejs|raylib OUTPUT.txt --cli SKELANIM --file FILE.glb [options]
      compares the program's output with an independent reference:
      --oracle oracle.three.json   three.js's poses (../shared/assets/gltf/*/oracle.three.json)
      otherwise `skelanim sample ... --json` (docs/sample-json.md): for one clip its world
      matrices and skinned vertices as they are; for a blend of two clips the two clips'
      local transforms blended here (nlerp or slerp, written below from the formulas, not
      the library's code) and carried to model space with the file's node hierarchy
      (parents read from the .glb's JSON chunk here).
Prints what it compared; exits 1 on the first difference beyond the tolerance."""
import argparse, json, math, struct, subprocess, sys

POS_TOL = 1e-4  # metres: float32 programs against a double reference over a chain of joints


def fail(msg):
    sys.exit('FAIL: ' + msg)


def check_page(page, src):
    text = open(page).read()
    code = open(src).read()
    first = code.split('\n', 1)[0]
    blocks = text.split('```c\n')[1:]
    found = [b.split('```', 1)[0] for b in blocks if b.startswith(first)]
    if len(found) != 1:
        fail(f'{page}: {len(found)} ```c blocks open with the first line of {src} (want 1)')
    if found[0] != code:
        a, b = found[0].split('\n'), code.split('\n')
        n = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        fail(f'{page}: the program differs from {src} at line {n + 1}')
    print(f'{page}: the program block is {src} ({len(code.splitlines())} lines)')


def parse_output(path):
    frames = []
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == 'frame':
            f = {'frame': int(w[1]), 'joints': {}, 'vertices': {}}
            for k in range(2, len(w) - 1, 2):
                f[w[k]] = float(w[k + 1])
            frames.append(f)
        elif w[0] == 'joint':
            frames[-1]['joints'][int(w[1])] = (w[2] if len(w) == 6 else '', [float(x) for x in w[-3:]])
        elif w[0] == 'vertex':
            frames[-1]['vertices'][(int(w[1]), int(w[2]), int(w[3]))] = [float(x) for x in w[4:7]]
        else:
            fail(f'unexpected output line: {line.strip()}')
    if not frames:
        fail(f'{path}: no frames')
    return frames


def glb_parents(path):
    data = open(path, 'rb').read()
    magic, _, _ = struct.unpack_from('<4sII', data, 0)
    if magic != b'glTF':
        fail(f'{path}: not a .glb')
    size, kind = struct.unpack_from('<I4s', data, 12)
    if kind != b'JSON':
        fail(f'{path}: no JSON chunk')
    doc = json.loads(data[20:20 + size])
    parents = {}
    for i, n in enumerate(doc.get('nodes', [])):
        for c in n.get('children', []):
            parents[c] = i
    return parents


def sample(cli, file, t, clip, loop='repeat', vertices=()):
    cmd = [cli, 'sample', file, '--time', repr(t), '--clip', str(clip), '--loop', loop, '--json']
    for v in vertices:
        cmd += ['--vertex', '%d:%d:%d' % v]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


# ---- the reference's own math: quaternions (x, y, z, w), column-major 4x4 ----

def qnorm(q):
    n = math.sqrt(sum(c * c for c in q))
    return [c / n for c in q]


def nlerp(qs, ws):
    acc = [0.0] * 4
    for q, w in zip(qs, ws):
        s = 1.0 if sum(a * b for a, b in zip(q, qs[0])) >= 0 else -1.0
        acc = [a + s * w * c for a, c in zip(acc, q)]
    return qnorm(acc)


def slerp(a, b, t):
    d = sum(x * y for x, y in zip(a, b))
    if d < 0:
        b, d = [-c for c in b], -d
    if d > 0.9999999:
        return qnorm([x + t * (y - x) for x, y in zip(a, b)])
    th = math.acos(min(1.0, d))
    sa, sb = math.sin((1 - t) * th) / math.sin(th), math.sin(t * th) / math.sin(th)
    return [sa * x + sb * y for x, y in zip(a, b)]


def trs(t, r, s):
    x, y, z, w = r
    m = [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
         2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
         2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0,
         t[0], t[1], t[2], 1]
    for c in range(3):
        for k in range(3):
            m[4 * c + k] *= s[c]
    return m


def mul(a, b):
    return [sum(a[4 * k + r] * b[4 * c + k] for k in range(4)) for c in range(4) for r in range(4)]


def world_positions(locals_, parents):
    """Model-space positions of every node from local TRS: world = world(parent) x TRS."""
    memo = {}

    def world(i):
        if i not in memo:
            m = trs(*locals_[i])
            memo[i] = mul(world(parents[i]), m) if i in parents else m
        return memo[i]
    return {i: world(i)[12:15] for i in locals_}


def blended_positions(cli, file, parents, clips, times, weights, mode):
    poses = []
    for c, t in zip(clips, times):
        js = sample(cli, file, t, c)
        poses.append({n['index']: n['local'] for n in js['nodes']})
    locals_ = {}
    for i in poses[0]:
        ls = [p[i] for p in poses]
        W = sum(weights)
        tr = [sum(w * l['t'][k] for w, l in zip(weights, ls)) / W for k in range(3)]
        sc = [sum(w * l['s'][k] for w, l in zip(weights, ls)) / W for k in range(3)]
        if mode == 'slerp':
            rot = slerp(ls[0]['r'], ls[1]['r'], weights[1] / W)
        else:
            rot = nlerp([l['r'] for l in ls], weights)
        locals_[i] = (tr, rot, sc)
    return world_positions(locals_, parents)


WORST = [0.0]  # the largest difference met, as a fraction of its tolerance


def close(a, b, tol):
    e = max(abs(x - y) for x, y in zip(a, b))
    WORST[0] = max(WORST[0], e / tol)
    return e <= tol


def compare_joints(frame, ref, tol, what):
    n = 0
    for node, (name, p) in frame['joints'].items():
        if node not in ref:
            fail(f'{what}: node {node} ({name}) is not in the reference')
        if not close(p, ref[node], tol):
            fail(f'{what}: frame {frame["frame"]} node {node} ({name}) at {p}, reference {ref[node]} (tolerance {tol})')
        n += 1
    return n


def oracle_samples(path):
    o = json.load(open(path))
    tol = o['header']['tolerances']['numeric']
    return o, o['clips'][0]['samples'], tol


def oracle_match(samples, clip_time, mode='repeat'):
    return [s for s in samples if s['mode'] == mode and abs(s['clipTime'] - clip_time) <= 1e-6]


def main():
    if sys.argv[1] == 'page':
        return check_page(sys.argv[2], sys.argv[3])
    ap = argparse.ArgumentParser()
    ap.add_argument('mode', choices=['ozz', 'threejs', 'raylib'])
    ap.add_argument('output')
    ap.add_argument('--cli', required=True)
    ap.add_argument('--file', required=True)
    ap.add_argument('--clips', nargs='*', default=['0'])
    ap.add_argument('--blend', type=float, default=None)
    ap.add_argument('--fade', nargs=2, type=float, default=None)
    ap.add_argument('--oracle')
    ap.add_argument('--min', type=int, required=True, help='the fewest values that must be compared')
    a = ap.parse_args()
    frames = parse_output(a.output)
    compared = 0
    if a.oracle:
        o, samples, tol = oracle_samples(a.oracle)
        E = max(1.0, tol['E'])
        for f in frames:
            t = f['time_a'] if a.mode != 'raylib' else f['time']
            dur = o['clips'][0]['duration']
            ms = oracle_match(samples, t, 'once_clamped' if a.mode == 'raylib' and abs(t - dur) < 1e-9 else 'repeat')
            for s in ms:
                if a.mode == 'raylib':
                    for vs in s['vertices']:
                        idx = [v for v in o['vertexSets'] if v['node'] == vs['node'] and v['primitive'] == vs['primitive']][0]['indices']
                        for v, w in zip(idx, vs['world']):
                            key = (vs['node'], vs['primitive'], v)
                            if key in f['vertices']:
                                if not close(f['vertices'][key], w, tol['position'] * E):
                                    fail(f'vertex {key} at t {t}: {f["vertices"][key]}, three.js {w}')
                                compared += 1
                else:
                    ref = {n['node']: n['world'][12:15] for n in s['nodes']}
                    ref = {k: v for k, v in ref.items() if k in f['joints']}
                    f2 = dict(f, joints={k: v for k, v in f['joints'].items() if k in ref})
                    compared += compare_joints(f2, ref, tol['matrix'] * E, 'three.js oracle')
        print(f'{a.mode}: {compared} values within the three.js oracle\'s tolerances ({len(frames)} frames; '
              f'worst {WORST[0]:.3f} of the tolerance)')
    else:
        parents = glb_parents(a.file)
        if a.mode == 'ozz':
            clips = a.clips
            if len(clips) == 2:
                d = [sample(a.cli, a.file, 0.0, c)['clip']['duration'] for c in clips]
                L = (1 - a.blend) * d[0] + a.blend * d[1]
                for f in frames:  # the blend sample's synchronisation: one phase for both clips
                    ph = (f['frame'] / 60.0 / L) % 1.0
                    for t, dd in ((f['time_a'], d[0]), (f['time_b'], d[1])):
                        e = abs(t / dd - ph)
                        if min(e, 1 - e) > 1e-5:
                            fail(f'frame {f["frame"]}: clip time {t} of {dd} s is not at phase {ph}')
                    if abs(f['weight_b'] - a.blend) > 1e-6:
                        fail(f'frame {f["frame"]}: weight_b {f["weight_b"]}, want {a.blend}')
                    ref = blended_positions(a.cli, a.file, parents, clips, [f['time_a'], f['time_b']],
                                            [1 - a.blend, a.blend], 'nlerp')
                    compared += compare_joints(f, ref, POS_TOL, 'nlerp blend')
            else:
                for f in frames:
                    js = sample(a.cli, a.file, f['time_a'], clips[0])
                    compared += compare_joints(f, {n['index']: n['world'][12:15] for n in js['nodes']}, POS_TOL,
                                               'skelanim sample')
        elif a.mode == 'threejs':
            fade_at, dur = a.fade
            dt, prev_t, prev2_t, prev_s, fades = 1.0 / 60.0, 0.0, -1.0, -1.0, 0
            d = [sample(a.cli, a.file, 0.0, c)['clip']['duration'] for c in a.clips]
            for f in frames:
                t = f['t']
                if abs(t - f['frame'] * dt) > 1e-9:
                    fail(f'frame {f["frame"]}: mixer time {t}')
                s = f['fade_start']
                if s >= 0:  # crossFadeTo before the first update that starts at or after FADE_AT
                    if prev_s < 0 and (s != prev_t or not s >= fade_at > prev2_t):
                        fail(f'frame {f["frame"]}: the fade started at {s}, FADE_AT {fade_at}')
                    if prev_s >= 0 and s != prev_s:
                        fail(f'frame {f["frame"]}: the fade start moved from {prev_s} to {s}')
                    wb = min(1.0, max(0.0, (t - s) / dur)) if dur > 0 else 1.0
                elif prev_t >= fade_at:
                    fail(f'frame {f["frame"]}: no fade started by t = {t}')
                else:
                    wb = 0.0
                if abs(f['weight_b'] - wb) > 1e-6 or abs(f['weight_a'] - (1 - wb)) > 1e-6:
                    fail(f'frame {f["frame"]} t {t}: weights {f["weight_a"]} {f["weight_b"]}, linear fade {1 - wb} {wb}')
                for k, dd in ((f['time_a'], d[0]), (f['time_b'], d[1])):  # both actions run all along
                    e = abs(k - (t % dd))  # dd as printed, 9 digits
                    if min(e, dd - e) > 1e-6:
                        fail(f'frame {f["frame"]}: action time {k}, want {t % dd}')
                fades += s >= 0
                compared += 3
                prev2_t, prev_t, prev_s = prev_t, t, s
                if f['joints']:
                    ref = blended_positions(a.cli, a.file, parents, a.clips, [f['time_a'], f['time_b']],
                                            [f['weight_a'], f['weight_b']], 'slerp')
                    compared += compare_joints(f, ref, POS_TOL, 'slerp crossfade')
            if fades == 0 or frames[-1]['weight_b'] != 1.0:
                fail('the crossfade did not run to its end')
        else:  # raylib
            dur = sample(a.cli, a.file, 0.0, a.clips[0])['clip']['duration']
            for f in frames:
                keys = sorted(f['vertices'])
                js = sample(a.cli, a.file, f['time'], a.clips[0], 'clamp', keys)
                for k, s in zip(keys, js['skinned']):
                    if not close(f['vertices'][k], s['position'], POS_TOL):
                        fail(f'vertex {k} at t {f["time"]}: {f["vertices"][k]}, skelanim sample {s["position"]}')
                    compared += 1
                if f['time'] > dur + 1e-9:
                    fail(f'frame {f["frame"]}: time {f["time"]} past the clip ({dur} s)')
        print(f'{a.mode}: {compared} values compared with skelanim sample ({len(frames)} frames; '
              f'worst {WORST[0]:.3f} of the tolerance)')
    if compared < a.min:
        fail(f'{compared} values compared, fewer than {a.min}')


if __name__ == '__main__':
    main()
