"""The three.js oracle (../shared/assets/gltf/*/oracle.three.json): for every model, the rest pose
and every recorded sample of every clip: clip time, local TRS, world matrices, skinning matrices,
morph weights and skinned / morphed vertex positions, within the oracle's own tolerances
(header.tolerances.numeric; the C suite's tests/test_oracle.c applies the same ones)."""
import json
import os

import numpy as np

import skelanim as sk

MODELS = 12  # the folders of ../shared/assets/gltf other than LICENSES


def _mat(x):
    return np.array(x, float).reshape(4, 4).T


def _cmp_mat(got, want, tol, E):
    mx = max(1.0, np.abs(want[:3, :3]).max())
    lim = np.full((4, 4), tol['matrix'] * mx)
    lim[:3, 3] = tol['matrix'] * E
    return float(np.max(np.abs(got - want) / lim))


def _vertices(asset, node, prim_i, weights, model, indices):
    j = int(asset.node_to_joint[node])
    prim = asset.meshes[asset.joint_mesh[j]].primitives[prim_i]
    s = asset.skeleton
    mw = weights[s.weight_offset[j]:s.weight_offset[j] + s.weight_count[j]] if s.weight_count[j] else None
    if asset.joint_skin[j] >= 0:
        pal = asset.skins[asset.joint_skin[j]].palette(model)
        pos = sk.SkinnedMesh(prim).skin(pal, morph_weights=mw)
    else:
        p = prim.positions.astype(float).copy()
        if mw is not None:
            for k, w in enumerate(mw):
                p += w * prim.target_positions[k]
        pos = (p @ model[j][:3, :3].T.astype(float)) + model[j][:3, 3]
    return pos[indices]


def check_model(folder, stats):
    o = json.load(open(os.path.join(folder, 'oracle.three.json')))
    hdr = o['header']
    tol = hdr['tolerances']['numeric']
    E = tol['E']
    asset = sk.load_gltf(os.path.join(folder, hdr['asset']['file']))
    s = asset.skeleton
    assert len(asset.clips) == len(o['clips'])
    passes = [(None, [o['rest']])] + [(i, c['samples']) for i, c in enumerate(o['clips'])]
    worst = 0.0
    for ci, samples in passes:
        if ci is not None:
            d = o['clips'][ci]['duration']
            assert abs(asset.clips[ci].duration - d) <= 1e-9 * max(1, d)
        for smp in samples:
            pose = sk.Pose(s)
            if ci is not None:
                loop = 'clamp' if smp['mode'] == 'once_clamped' else 'repeat'
                ct = asset.clips[ci].wrap_time(smp['t'], loop)
                assert abs(ct - smp['clipTime']) <= 1e-9 * max(1.0, smp['t'])
                asset.clips[ci].sample(s, smp['t'], loop, out=pose)
            model = pose.model()
            model64 = model.astype(float)
            for n in smp['nodes']:
                j = int(asset.node_to_joint[n['node']])
                loc = pose.local[j].astype(float)
                xt, xr, xs = np.array(n['t']), np.array(n['r']), np.array(n['s'])
                r = max(np.max(np.abs(loc[0:3] - xt) / (tol['trs'] * np.maximum(1, np.abs(xt)))),
                        np.max(np.abs(loc[7:10] - xs) / (tol['trs'] * np.maximum(1, np.abs(xs)))),
                        min(np.abs(loc[3:7] - xr).max(), np.abs(loc[3:7] + xr).max()) / tol['rotation'],
                        _cmp_mat(model64[j], _mat(n['world']), tol, E))
                worst = max(worst, r)
                stats['values'] += 26
            for n in smp['weights']:
                j = int(asset.node_to_joint[n['node']])
                w = pose.weights[s.weight_offset[j]:s.weight_offset[j] + s.weight_count[j]]
                assert len(w) == len(n['weights'])
                worst = max(worst, float(np.max(np.abs(w - np.array(n['weights'])) / tol['weights'], initial=0)))
                stats['values'] += len(w)
            for n in smp['skins']:
                skin = asset.skins[n['skin']]
                pal = skin.palette(model).astype(float)
                assert len(pal) == len(n['skinMatrices'])
                for k, m in enumerate(n['skinMatrices']):
                    worst = max(worst, _cmp_mat(pal[k], _mat(m), tol, E))
                stats['values'] += 16 * len(pal)
            for k, n in enumerate(smp['vertices']):
                vs = o['vertexSets'][k]
                got = _vertices(asset, n['node'], n['primitive'], pose.weights, model, np.array(vs['indices']))
                want = np.array(n['world'], float)
                worst = max(worst, float(np.max(np.abs(got - want)) / (tol['position'] * E)))
                stats['values'] += want.size
            stats['samples'] += 1
    return worst


def test_three_oracle(shared):
    root = os.path.join(shared, 'assets', 'gltf')
    models = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and d != 'LICENSES')
    assert len(models) == MODELS, models
    stats = {'samples': 0, 'values': 0}
    worst = {}
    for m in models:
        worst[m] = check_model(os.path.join(root, m), stats)
    print('three.js oracle: %d models, %d samples, %d values; worst %.3f of tolerance'
          % (len(models), stats['samples'], stats['values'], max(worst.values())))
    assert all(w <= 1.0 for w in worst.values()), worst
    assert stats['samples'] > 100 and stats['values'] > 10000
