"""skelanim retarget levels the planted feet (sk_foot_level over the source's foot contacts): a CMU
capture's rest holds the foot at another angle against the ground than a character's bind pose, and
retargeted onto CesiumMan the feet stood on their heels, the toes 25-48 degrees up. Measured here,
independently of the tool: the sole's pitch (heel point to toe point, found on the mesh's sole) in
the target's forward kinematics, over the middle half of each foot's planted phase as the capture's
own analysis on its own skeleton finds it, against the same line at rest (the bind pose stands on
its soles). With levelling within 4 degrees of flat; with --no-level the tilt is there (over 15);
the tool's reported levelling is the difference within 3 degrees. Also foot_level's contacts= (the
source's intervals) against the clip's own."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import skelanim as sk
from conftest import ROOT, require

DEG = math.pi / 180


def _cesium_legs(asset):
    s = asset.skeleton
    legs = [sk.Leg(s.find('leg_joint_%s_1' % k), s.find('leg_joint_%s_2' % k), s.find('leg_joint_%s_3' % k),
                   s.find('leg_joint_%s_5' % k), name=k) for k in 'LR']
    return sk.legs_from_mesh(asset, legs)


def _pitch(skel, pose_model, leg):
    h = pose_model[leg.ankle] @ np.append(leg.heel, 1.0)
    q = pose_model[leg.toe] @ np.append(leg.toe_tip, 1.0)
    d = q[:3] - h[:3]
    return math.atan2(d[1], math.hypot(d[0], d[2]))


def _planted_times(src):
    """Per leg (left, right) the times over the middle half of the planted phase of the capture's
    best cycle, analysed on its own skeleton."""
    legs = sk.find_legs(src.skeleton)
    assert [l.name for l in legs][:2] == ['left', 'right'], legs
    clip = src.clips[0]
    s, e = sk.find_cycle(src.skeleton, clip, legs)
    an = sk.analyze(src.skeleton, clip, legs, cycle_start=s, cycle_end=e)
    out = []
    for L in an.legs[:2]:
        span = (L.foot_lift - L.foot_land) % 1.0
        out.append([s + (e - s) * ((L.foot_land + span * (0.25 + 0.5 * k / 8)) % 1.0) for k in range(9)])
    return out


def _tilts(path, clip_name, times):
    a = sk.load(path)
    skel = a.skeleton
    legs = _cesium_legs(a)
    clip = next(c for c in a.clips if c.name == clip_name)
    rest = sk.local_to_model(skel, sk.Pose(skel))
    out = []
    for l, leg in enumerate(legs):
        p = [_pitch(skel, sk.local_to_model(skel, clip.sample(skel, t, loop='clamp')), leg) for t in times[l]]
        out.append(float(np.median(p)) - _pitch(skel, rest, leg))
    return out


@pytest.mark.parametrize('capture', ['tests/data/cmu/08_11.bvh', 'mocap/bvh/02_01.bvh'])
def test_retarget_levels_the_planted_feet(cli, shared, tmp_path, capture):
    src_path = os.path.join(ROOT, capture) if capture.startswith('tests/') else os.path.join(shared, capture)
    require(src_path, capture)
    cesium = require(os.path.join(shared, 'assets', 'gltf', 'CesiumMan', 'CesiumMan.glb'), 'CesiumMan')
    src = sk.load_bvh(src_path, scale=0.056444)
    times = _planted_times(src)
    name = os.path.basename(capture)[:-4]
    got = {}
    for flag in ([], ['--no-level']):
        out = str(tmp_path / ('o%d.glb' % len(flag)))
        r = subprocess.run([cli, 'retarget', src_path, cesium, '-o', out, '--scale', '0.056444', '--json'] + flag,
                           check=True, capture_output=True, text=True)
        summary = json.loads(r.stdout)
        assert summary['feet_levelled'] is (not flag), summary
        got[bool(flag)] = (_tilts(out, name, times), summary['clips'][0]['feet_level_deg'])
    (levelled, said), (raw, said_raw) = got[False], got[True]
    print('%s on CesiumMan: planted sole pitch %.1f / %.1f degrees levelled, %.1f / %.1f without; the tool '
          'turned %.1f / %.1f' % (name, levelled[0] / DEG, levelled[1] / DEG, raw[0] / DEG, raw[1] / DEG, said[0], said[1]))
    assert said_raw == [0, 0]
    for l in range(2):
        assert abs(levelled[l]) < 4 * DEG, (l, levelled, raw)
        assert raw[l] > 15 * DEG, (l, raw)
        assert abs((raw[l] - levelled[l]) / DEG - said[l]) < 3, (l, raw, levelled, said)


def test_foot_level_over_given_contacts(mannequin):
    """foot_level with contacts=: the clip's own contacts give the same tilts as finding them; no
    contacts leave every leg as it is; a contact of a leg that does not exist is refused."""
    skel = mannequin.skeleton
    walk = next(c for c in mannequin.clips if c.name == 'walk')
    legs = sk.legs_from_mesh(mannequin, sk.find_legs(skel))
    found = sk.find_contacts(skel, walk, legs)
    assert len(found) >= 2
    _, a = sk.foot_level(skel, walk, legs)
    _, b = sk.foot_level(skel, walk, legs, contacts=found)
    assert [x['tilt'] for x in a] == [x['tilt'] for x in b]
    assert [x['samples'] for x in a] == [x['samples'] for x in b]
    _, c = sk.foot_level(skel, walk, legs, contacts=[])
    assert [x['samples'] for x in c] == [0, 0] and not any(x['applied'] for x in c)
    with pytest.raises(sk.InvalidArgument):
        sk.foot_level(skel, walk, legs, contacts=[(5, 0.1, 0.2)])
