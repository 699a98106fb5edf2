"""Motion analysis, IK, retargeting and state machines: against the skelanim tool (the same C
functions through another door), closed forms and properties checked here."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import skelanim as sk
from conftest import ROOT


def _numbers(x, prefix=''):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _numbers(v, prefix + '/' + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _numbers(v, '%s/%d' % (prefix, i))
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield prefix, float(x)


def test_analysis_matches_the_tool(mannequin, cli):
    s = mannequin.skeleton
    legs = sk.legs_from_mesh(mannequin, sk.find_legs(s))
    checked = 0
    for clip in ('walk', 'run'):
        a = sk.analyze(s, mannequin.clip(clip), legs)
        ref = json.loads(subprocess.run([cli, 'analyze', '@mannequin', '--clip', clip, '--json'], check=True,
                                        capture_output=True, text=True).stdout)['analysis']
        mine = dict(_numbers(json.loads(a.to_json())))
        theirs = dict(_numbers(ref))
        assert mine.keys() == theirs.keys()
        for k, v in theirs.items():
            assert abs(mine[k] - v) <= 1e-6 * max(1.0, abs(v)), k
            checked += 1
        # the views of the per-sample curves hold what the JSON holds
        np.testing.assert_allclose(a.legs[0].footbase, np.array(ref['legs'][0]['samples']['footbase']).reshape(-1, 3), atol=1e-6)
        b = sk.MotionAnalysis.from_json(a.to_json())
        assert b.cycle_speed == a.cycle_speed and b.legs[1].stance_time == a.legs[1].stance_time
    assert checked > 5000


def test_analysis_properties(mannequin):
    """Root velocity = the hips' displacement over the cycle; the stride speed near it; the heel
    down at the stance time; keytimes in [0, 1)."""
    s, walk = mannequin.skeleton, mannequin.clip('walk')
    a = sk.analyze(s, walk)
    hips = [mannequin.skeleton.find(n) for n in ('thigh_l', 'thigh_r')]
    p0, p1 = walk.sample(s, 0.0).model(), walk.sample(s, walk.duration, loop='clamp').model()
    disp = np.mean([p1[j][:3, 3] - p0[j][:3, 3] for j in hips], axis=0) / walk.duration
    np.testing.assert_allclose(a.root_velocity[[0, 2]], disp[[0, 2]], atol=1e-4)
    assert abs(a.cycle_speed - np.linalg.norm(a.root_velocity)) < 0.03 * a.cycle_speed
    assert len(a.legs) == 2 and a.sample_count >= 60
    for leg in a.legs:
        for k in ('stance_time', 'foot_off', 'foot_strike', 'foot_lift', 'foot_land'):
            assert 0 <= getattr(leg, k) < 1
        assert leg.heel_height[leg.stance_sample] <= leg.heel_contact + 1e-6
        assert leg.heel_height.shape == (a.sample_count,) and leg.balance.min() >= 0 and leg.balance.max() <= 1
    assert abs(a.legs[0].stance_time - a.legs[1].stance_time - 0.5) % 1.0 < 0.05 or \
        abs(a.legs[1].stance_time - a.legs[0].stance_time - 0.5) % 1.0 < 0.05  # the legs half a cycle apart


@pytest.mark.parametrize('solver', ['twobone', 'ccd', 'fabrik', 'dls'])
def test_ik_reaches_the_target(mannequin, solver):
    s = mannequin.skeleton
    chain = sk.ik.chain(s, 'thigh_l', 'foot_l')
    assert list(chain) == [s.find('thigh_l'), s.find('shin_l'), s.find('foot_l')]
    checked = 0
    for target in [(0.15, 0.35, 0.25), (0.05, 0.5, -0.2), (0.3, 0.2, 0.1)]:
        pose = s.rest_pose()
        r = sk.ik.solve(s, pose, chain, target, solver=solver, pole=(0.1, 0.5, 1.0) if solver == 'twobone' else None)
        tip = pose.model()[chain[-1]][:3, 3]
        assert r['reachable']
        assert np.linalg.norm(tip - np.array(target)) <= max(1e-3, r['error'] + 1e-5)
        assert r['error'] < 1e-3, r
        # only the chain's rotations changed
        other = np.setdiff1d(np.arange(s.joint_count), chain)
        np.testing.assert_array_equal(pose.local[other], s.rest[other])
        np.testing.assert_array_equal(pose.t, s.rest[:, 0:3])
        checked += 1
    assert checked == 3


def test_ik_unreachable(mannequin):
    s = mannequin.skeleton
    chain = sk.ik.chain(s, 13, 15)
    pose = s.rest_pose()
    hip = pose.model()[13][:3, 3]
    target = hip + np.array([0, -3.0, 0])
    r = sk.ik.solve(s, pose, chain, target, solver='twobone')
    assert not r['reachable']
    assert abs(r['error'] - (3.0 - r['chain_length'])) < 1e-4  # the straight leg points at it
    assert abs(r['chain_length'] - 0.85) < 1e-6  # 0.43 + 0.42 (mannequin.c)


def test_retarget_onto_a_scaled_mannequin(mannequin):
    """Same proportions, 1.5 m instead of 1.8 m: rotations carry over, the root translation scales
    with the leg length ratio."""
    small = sk.mannequin(height=1.5)
    rt = sk.Retargeter(mannequin.skeleton, small.skeleton)
    assert abs(rt.root_scale - 1.5 / 1.8) < 1e-4
    bones, scheme = sk.humanoid_map(small.skeleton)
    assert scheme == 'skelanim' and bones['left_foot'] == small.skeleton.find('foot_l')
    walk = mannequin.clip('walk')
    for t in (0.1, 0.6):
        src = walk.sample(mannequin.skeleton, t)
        out = rt.pose(src)
        for j in range(small.skeleton.joint_count):
            if rt.source_of(j) >= 0:
                q, p = out.r[j], src.r[rt.source_of(j)]
                assert min(np.abs(q - p).max(), np.abs(q + p).max()) < 1e-4
        hips = small.skeleton.find('hips')
        np.testing.assert_allclose(out.t[hips] - small.skeleton.rest[hips, 0:3],
                                   (src.t[hips] - mannequin.skeleton.rest[hips, 0:3]) * rt.root_scale, atol=1e-5)
    clip = rt.clip(walk)
    assert abs(clip.duration - walk.duration) < 1e-6
    np.testing.assert_allclose(clip.sample(small.skeleton, 0.6).local, rt.pose(walk.sample(mannequin.skeleton, 0.6)).local,
                               atol=2e-4)


def test_state_machine_matches_the_tool(mannequin, cli):
    path = os.path.join(ROOT, 'tests', 'data', 'blend', 'locomotion.json')
    g = sk.Graph.load(path, mannequin.skeleton, mannequin.clips)
    assert g.params == {'speed': 'float', 'crouch': 'bool', 'stop': 'trigger'}
    inst = g.instance()
    assert inst.current_state == 'idle'
    inst.set('speed', 2.0)
    travel, yaw = np.zeros(3), 0.0
    for _ in range(10):
        inst.update(0.1)
        (dx, dy, dz), dyaw = inst.root_motion  # composed here: a then b, b in a's frame (about +Y)
        travel += [dx * math.cos(yaw) + dz * math.sin(yaw), dy, -dx * math.sin(yaw) + dz * math.cos(yaw)]
        yaw += dyaw
    pose = inst.evaluate()
    ref = json.loads(subprocess.run([cli, 'sample', '@mannequin', '--graph', path, '--set', 'speed=2', '--steps',
                                     '0.1x10', '--json'], check=True, capture_output=True, text=True).stdout)
    assert inst.current_state == ref['graph']['current'] == 'move'
    for node in ref['nodes']:
        loc = node['local']
        np.testing.assert_allclose(pose.local[node['index']], loc['t'] + loc['r'] + loc['s'], atol=1e-7)
    np.testing.assert_allclose(travel, ref['graph']['root_motion']['translation'], atol=1e-5)
    assert abs(yaw - ref['graph']['root_motion']['yaw']) < 1e-5
    inst.trigger('stop')
    inst.update(0.5)
    assert inst.current_state == 'idle'
    with pytest.raises(sk.ParseError) as e:
        sk.Graph.from_json('{"machine": ', mannequin.skeleton, mannequin.clips)
    assert 'offset' in str(e.value) or 'byte' in str(e.value), str(e.value)


def _qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def _sole_pitch(skel, clip, leg, times):
    """Median pitch (rad, toe up +) of the heel-to-toe line of leg over times, forward kinematics
    from the library's model matrices and the leg's points (found as the library does at rest)."""
    out = []
    for t in times:
        m = sk.local_to_model(skel, clip.sample(skel, t, loop='clamp'))
        h = m[leg.ankle] @ np.append(leg.heel, 1.0)
        q = m[leg.toe] @ np.append(leg.toe_tip, 1.0)
        d = q[:3] - h[:3]
        out.append(math.atan2(d[1], math.hypot(d[0], d[2])))
    return float(np.median(out))


def test_foot_level_takes_out_a_known_tilt(mannequin):
    """The mannequin's walk stands its feet flat (no tilt found); the same walk with the left ankle
    turned 10 degrees (toe up) about the world X axis as seen from the ankle at rest, built here on
    its keys, is found tilted by 10 degrees and comes back: the sole's pitch over the middle of the
    planted phase (measured here) returns to the original's."""
    skel = mannequin.skeleton
    walk = next(c for c in mannequin.clips if c.name == 'walk')
    legs = sk.legs_from_mesh(mannequin, sk.find_legs(skel))
    assert len(legs) == 2 and legs[0].heel is not None
    _, st = sk.foot_level(skel, walk, legs)
    assert [s['applied'] for s in st] == [False, False]
    assert all(abs(s['tilt']) < math.radians(0.2) and s['samples'] > 0 for s in st)
    ankle = legs[0].ankle
    rest = sk.local_to_model(skel, sk.Pose(skel))[ankle][:3, :3]
    axis = rest.T @ np.array([1.0, 0.0, 0.0])  # world +X in the ankle's rest frame (rotation part)
    axis /= np.linalg.norm(axis)
    a = math.radians(-10.0)  # about +X a negative turn raises the toe (the mannequin faces +Z)
    turn = np.append(axis * math.sin(a / 2), math.cos(a / 2))
    tracks = []
    for i, info in enumerate(walk.tracks):
        times, values = walk.track_keys(i)
        if info.path == 'rotation' and info.joint == ankle:
            values = np.array([_qmul(v, turn) for v in values], np.float32)
        tracks.append({'joint': info.joint, 'path': info.path, 'times': times, 'values': values,
                       'interpolation': info.interpolation})
    tilted = sk.clip_from_tracks('tilted', tracks, duration=walk.duration)
    _, st = sk.foot_level(skel, tilted, legs)
    assert st[0]['applied'] and abs(st[0]['tilt'] - math.radians(10.0)) < math.radians(0.5), st[0]
    assert not st[1]['applied']
    level, _ = sk.foot_level(skel, tilted, legs)
    # the middle of the left foot's planted phase, from the analysis of the original walk
    an = sk.analyze(skel, walk, legs)
    L = an.legs[0]
    land, lift = L.foot_land, L.foot_lift
    span = (lift - land) % 1.0
    times = [walk.duration * ((land + span * (0.25 + 0.5 * k / 8)) % 1.0) for k in range(9)]
    orig = _sole_pitch(skel, walk, legs[0], times)
    before = _sole_pitch(skel, tilted, legs[0], times)
    after = _sole_pitch(skel, level, legs[0], times)
    assert abs(before - orig - math.radians(10.0)) < math.radians(1.0), (before, orig)
    assert abs(after - orig) < math.radians(0.3), (after, orig)
    with pytest.raises(sk.InvalidArgument):
        sk.foot_level(skel, walk, legs, max_angle=2.0)
    # per contact: the walk's contacts each take the same tilt here, so the same planted pitch
    each, st = sk.foot_level(skel, tilted, legs, per_contact=True)
    assert st[0]['applied'] and not st[1]['applied']
    assert abs(_sole_pitch(skel, each, legs[0], times) - orig) < math.radians(0.3)


def _walk_08_11_on_the_mannequin(mannequin):
    """The tuning-half walk 08_11 (tests/data/cmu) retargeted onto the mannequin (its rest stood on
    the ground), its feet levelled, its best cycle: (source asset, skeleton, levelled clip, legs,
    cycle start, cycle end)."""
    src = sk.load_bvh(os.path.join(ROOT, 'tests', 'data', 'cmu', '08_11.bvh'), scale=0.056444)
    skel = mannequin.skeleton
    clip = sk.Retargeter(src.skeleton, skel, flags=('ground_rest',)).clip(src.clips[0])
    legs = sk.legs_from_mesh(mannequin, sk.find_legs(skel))
    level, _ = sk.foot_level(skel, clip, legs)
    s, e = sk.find_cycle(skel, level, legs)
    return src, skel, level, legs, s, e


def test_widen_planted_takes_in_the_source_phase(mannequin):
    """A CMU walk (tests/data/cmu/08_11, in the repository) retargeted onto the mannequin with its
    feet levelled, its cycle found and analysed; the capture analysed on its own skeleton over its
    own cycle. widen_planted gives each leg the union of the two planted phases where they overlap
    or come within 2 % of the cycle,
    computed here on one time line in seconds; the right foot, planted for about a tenth of the cycle
    retargeted, stands for over a quarter after it."""
    src, skel, level, legs, s, e = _walk_08_11_on_the_mannequin(mannequin)
    a = sk.analyze(skel, level, legs, cycle_start=s, cycle_end=e)
    src_legs = sk.find_legs(src.skeleton)
    s2, e2 = sk.find_cycle(src.skeleton, src.clips[0], src_legs)
    b = sk.analyze(src.skeleton, src.clips[0], src_legs, cycle_start=s2, cycle_end=e2)
    D = a.cycle_duration

    def rel(x, st):  # a keytime relative to the stance, in (-0.5, 0.5]
        return x - st - math.floor(x - st + 0.5)

    expect = []
    for la, lb in zip(a.legs, b.legs):
        st = la.stance_time
        land, lift = rel(la.foot_land, st), rel(la.foot_lift, st)
        land -= 1 if land > 0 else 0
        t0 = b.cycle_start + lb.foot_land * b.cycle_duration
        t1 = b.cycle_start + lb.foot_lift * b.cycle_duration
        t1 += b.cycle_duration if t1 < t0 else 0
        b0, b1 = (t0 - a.cycle_start) / D - st, (t1 - a.cycle_start) / D - st
        k = math.floor((b0 + b1) / 2 + 0.5)
        b0, b1 = b0 - k, b1 - k
        if b0 > lift + 0.02 or b1 < land - 0.02 or max(lift, b1) - min(land, b0) > 0.7:  # 2 %: the bridged gap
            expect.append((land, lift))
        else:
            expect.append((min(land, b0), max(lift, b1)))
    before = [(lg.foot_lift - lg.foot_land) % 1.0 for lg in a.legs]
    n = a.widen_planted(b)
    assert n >= 1
    for lg, (land, lift) in zip(a.legs, expect):
        assert abs(rel(lg.foot_land, lg.stance_time) - land) < 1e-5
        assert abs(rel(lg.foot_lift, lg.stance_time) - lift) < 1e-5
    after = [(lg.foot_lift - lg.foot_land) % 1.0 for lg in a.legs]
    assert before[1] < 0.2 and after[1] > 0.25, (before, after)
    with pytest.raises(sk.InvalidArgument):
        a.widen_planted(b, max_share=2.0)
    # the source analysed over the seconds before a's cycle (the cycle before it): they share
    # none, so nothing is widened
    assert s > 0.8 * D, (s, D)
    a2 = sk.analyze(skel, level, legs, cycle_start=s, cycle_end=e)
    b2 = sk.analyze(src.skeleton, src.clips[0], src_legs, cycle_start=0.0, cycle_end=s)
    keys = [(lg.foot_land, lg.foot_lift) for lg in a2.legs]
    assert a2.widen_planted(b2) == 0
    assert keys == [(lg.foot_land, lg.foot_lift) for lg in a2.legs]


def test_still_band_widens_a_retargeted_planted_phase(mannequin):
    """still_band (the analysis option locomote --from sets to 0.04 for retargeted clips): 0 is 0.03;
    a wider band shortens no planted phase and lengthens one at least, the stance inside it (it may
    move there: tuning-half walk 08_11 retargeted onto the mannequin, feet levelled); a band of 0.5
    or more is refused."""
    src, skel, level, legs, s, e = _walk_08_11_on_the_mannequin(mannequin)
    a0 = sk.analyze(skel, level, legs, cycle_start=s, cycle_end=e)
    a3 = sk.analyze(skel, level, legs, cycle_start=s, cycle_end=e, still_band=0.03)
    a4 = sk.analyze(skel, level, legs, cycle_start=s, cycle_end=e, still_band=0.04)
    longer = 0
    for l0, l3, l4 in zip(a0.legs, a3.legs, a4.legs):
        assert (l3.foot_land, l3.foot_lift, l3.stance_time) == (l0.foot_land, l0.foot_lift, l0.stance_time)
        p0, p4 = (l0.foot_lift - l0.foot_land) % 1.0, (l4.foot_lift - l4.foot_land) % 1.0
        assert (l4.stance_time - l4.foot_land) % 1.0 <= p4 + 1e-6  # foot-land <= stance <= foot-lift
        assert p4 >= p0 - 1e-6, (p0, p4)
        longer += p4 > p0 + 1e-6
    assert longer >= 1
    with pytest.raises(sk.InvalidArgument):
        sk.analyze(skel, level, legs, cycle_start=s, cycle_end=e, still_band=0.5)


def test_cycle_facing_of_a_capture_walking_to_and_fro():
    """CMU 03_04 walks out along +Z and back: over a straight stretch each way the facing agrees with
    the hips' displacement measured here (numpy, within 30 degrees); the stretches face about 180
    degrees apart; turned by turn_clip, the facing follows; the legs in either order agree."""
    a = sk.load_bvh(os.path.join(ROOT, 'tests/data/cmu-walks/03_04.bvh'), scale=0.056444)
    s, c = a.skeleton, a.clips[0]
    legs = sk.find_legs(s)
    hips = [legs[0].hip, legs[1].hip]
    faced = []
    for t0, t1 in ((1.0, 2.5), (16.0, 17.5)):
        p0 = np.asarray(c.sample(s, t0).model())[hips, :3, 3].mean(axis=0)
        p1 = np.asarray(c.sample(s, t1).model())[hips, :3, 3].mean(axis=0)
        mine = math.atan2(p1[0] - p0[0], p1[2] - p0[2])
        yaw, travel, spread = sk.cycle_facing(s, c, legs, t0, t1)
        assert abs(math.remainder(yaw - mine, 2 * math.pi)) < math.radians(30)
        assert abs(math.remainder(travel - mine, 2 * math.pi)) < math.radians(1)
        assert 0 <= spread < 0.1
        assert sk.cycle_facing(s, c, legs[::-1], t0, t1)[0] == pytest.approx(yaw, abs=1e-5)
        turned = sk.turn_clip(c, s, -yaw)
        assert abs(sk.cycle_facing(s, turned, legs, t0, t1)[0]) < 1e-3
        faced.append(yaw)
    assert abs(math.remainder(faced[1] - faced[0], 2 * math.pi)) > math.radians(150)
    with pytest.raises(sk.Error):
        sk.cycle_facing(s, c, legs[:1])


def test_legs_from_humanoid(mannequin, shared):
    """legs_from_humanoid: on the mannequin the legs find_legs finds by joint name; on CesiumMan,
    whose joint names find_legs does not know, two legs found by the humanoid map's shape, each a
    chain (hip above knee above ankle), the hips apart and each ankle a leg's length from its hip."""
    s = mannequin.skeleton
    by_name, by_map = sk.find_legs(s), sk.legs_from_humanoid(s)
    assert [(l.hip, l.knee, l.ankle, l.toe) for l in by_map] == [(l.hip, l.knee, l.ankle, l.toe) for l in by_name]
    assert [l.name for l in by_map] == ['left', 'right']
    assert sk.legs_from_humanoid(sk.HumanoidMap.find(s))[1].ankle == by_name[1].ankle
    cm = sk.load_gltf(os.path.join(shared, 'assets', 'gltf', 'CesiumMan', 'CesiumMan.glb'))
    cs = cm.skeleton
    assert sk.find_legs(cs) == []
    legs = sk.legs_from_humanoid(cs)
    assert len(legs) == 2
    model = sk.local_to_model(cs, cs.rest_pose())
    for l in legs:
        assert cs.parents[l.knee] == l.hip and cs.parents[l.ankle] == l.knee, (l.hip, l.knee, l.ankle)
    hip = [model[l.hip][:3, 3] for l in legs]
    ankle = [model[l.ankle][:3, 3] for l in legs]
    assert np.linalg.norm(hip[0] - hip[1]) > 0.05
    assert all(np.linalg.norm(a - h) > 0.3 for a, h in zip(ankle, hip))


def test_heels_to_ground(mannequin):
    """heels_to_ground: the mannequin's walk with its left heel point raised 2 cm analyses with that
    heel's ground 2 cm above its toe's; the call moves it back (analysed again, within 5 mm), and a
    leg in keep is left alone."""
    s = mannequin.skeleton
    walk = mannequin.clip('walk')
    legs = sk.legs_from_mesh(mannequin, sk.find_legs(s))
    legs[0].heel = (legs[0].heel[0], legs[0].heel[1] + 0.02, legs[0].heel[2])
    a = sk.analyze(s, walk, legs)
    assert 0.015 < a.legs[0].heel_ground - a.legs[0].toe_ground < 0.025
    kept, n = sk.heels_to_ground(s, walk, a, legs, keep=(0,))
    assert n == 0 and np.allclose(kept[0].heel, legs[0].heel, atol=1e-6)
    moved, n = sk.heels_to_ground(s, walk, a, legs)
    assert n == 1
    b = sk.analyze(s, walk, moved)
    assert abs(b.legs[0].heel_ground - b.legs[0].toe_ground) < 0.005
    with pytest.raises(sk.InvalidArgument):
        sk.heels_to_ground(s, walk, a, legs[:1])
