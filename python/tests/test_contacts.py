"""Foot contacts against a detection written here from the rule locomotion/contacts.h states
(ankle within a band above the lowest height it holds still, slower than a speed, for a minimum
time; numpy FK at 120 Hz), and contact restoration of a retargeted clip whose feet slide: each
ankle pinned over its contacts."""
import math
import os
import subprocess

import numpy as np
import pytest

import skelanim as sk
from fk import model as fk_model


def _ankles(skeleton, clip, ankle_joints, times):
    out = np.empty((len(times), len(ankle_joints), 3))
    for i, t in enumerate(times):
        m = fk_model(skeleton.parents, clip.sample(skeleton, t, loop='clamp').local.astype(float))
        out[i] = m[ankle_joints][:, :3, 3]
    return out


def _detect(p, dt, band, still, min_duration):
    """Runs of samples with the ankle low and still (central differences), at least min_duration."""
    n = len(p)
    v = np.empty(n)
    for s in range(n):
        a, b = max(s - 1, 0), min(s + 1, n - 1)
        v[s] = np.linalg.norm((p[b] - p[a])[[0, 2]]) / ((b - a) * dt)
    lowest = p[v <= still, 1].min()
    on = (p[:, 1] - lowest <= band) & (v <= still)
    runs, s = [], 0
    while s < n:
        if on[s]:
            e = s
            while e + 1 < n and on[e + 1]:
                e += 1
            if (e - s) * dt >= min_duration - 1e-9:
                runs.append((s, e))
            s = e + 1
        else:
            s += 1
    return runs


def test_contacts_follow_the_rule(mannequin):
    s, legs = mannequin.skeleton, sk.find_legs(mannequin.skeleton)
    rest = fk_model(s.parents, s.rest.astype(float))
    checked = 0
    for name in ('walk', 'run', 'walk_back'):
        clip = mannequin.clip(name)
        got = sk.find_contacts(s, clip, legs)
        n = int(round(clip.duration * 120)) + 1
        times = np.linspace(0, clip.duration, n)
        dt = times[1] - times[0]
        p = _ankles(s, clip, [leg.ankle for leg in legs], times)
        for li, leg in enumerate(legs):
            length = (np.linalg.norm(rest[leg.hip][:3, 3] - rest[leg.knee][:3, 3]) +
                      np.linalg.norm(rest[leg.knee][:3, 3] - rest[leg.ankle][:3, 3]))
            want = _detect(p[:, li], dt, 0.08 * length, 0.6 * length, 0.05)
            mine = [c for c in got if c.leg == li]
            assert len(mine) == len(want) >= 1, (name, li, mine, want)
            for c, (a, b) in zip(mine, want):
                assert abs(c.start - times[a]) <= 1.5 * dt, (c, times[a])
                assert abs(c.end - times[b]) <= 1.5 * dt, (c, times[b])
                np.testing.assert_allclose(c.position, p[a:b + 1, li].mean(axis=0), atol=5e-3)
                checked += 1
    assert checked >= 6
    with pytest.raises(ValueError):
        sk.find_contacts(s, mannequin.clip('walk'), legs, sample_rate=math.nan)
    with pytest.raises(sk.InvalidArgument):
        sk.find_contacts(s, mannequin.clip('walk'), legs, speed=-1.0)


def test_restore_pins_a_sliding_retarget(mannequin):
    """The walk retargeted onto a 1.5 m mannequin without scaling the root translation: the feet
    slide over the ground during their contacts. Restored with the source's contacts, each ankle
    holds one position over each contact (FK here, at the output's keys: 120 per second), within
    the reported error."""
    small = sk.mannequin(height=1.5)
    ss, legs_t = small.skeleton, sk.find_legs(small.skeleton)
    walk = mannequin.clip('walk')
    contacts = sk.find_contacts(mannequin.skeleton, walk)
    moved = sk.Retargeter(mannequin.skeleton, ss, root_scale=1.0).clip(walk)
    fixed, stats = sk.restore_contacts(ss, moved, contacts, legs_t, sample_rate=120)
    assert stats['contacts'] == len(contacts) >= 2 and stats['unreachable'] == 0
    assert stats['max_error'] < 1e-3 and abs(fixed.duration - moved.duration) < 1e-6
    ankles = [leg.ankle for leg in legs_t]
    before_spread, after_spread, n = 0.0, 0.0, 0
    for c in contacts:
        times = np.arange(math.ceil(c.start * 120 - 1e-6), math.floor(c.end * 120 + 1e-6) + 1) / 120.0
        for clip, which in ((moved, 'before'), (fixed, 'after')):
            p = _ankles(ss, clip, ankles, times)[:, c.leg]
            spread = np.abs(p - p.mean(axis=0)).max()
            if which == 'before':
                before_spread = max(before_spread, spread)
            else:
                after_spread = max(after_spread, spread)
                assert spread <= stats['max_error'] + 2e-4, (c, spread)
        n += 1
    assert n == len(contacts) and before_spread > 0.02 and after_spread < 1e-3, (before_spread, after_spread)
    with pytest.raises(sk.InvalidArgument):
        sk.restore_contacts(ss, moved, [(0, 0.5, 0.2)], legs_t)  # reversed times
    with pytest.raises(ValueError):
        sk.restore_contacts(ss, moved, [(0, 0.1, math.inf)], legs_t)


def test_restore_floor_keeps_feet_up(mannequin):
    """The walk retargeted onto a 2 m mannequin without scaling the root translation: its hips
    stay at the 1.8 m one's height and the longer legs go through the floor. Restored with
    floor=True, no foot joint (the ankle and every joint below it, FK here) is more than 1 mm below
    the ground in any output key; without it they are more than 2 cm below (4.5 cm when written)."""
    tall = sk.mannequin(height=2.0)
    ts, legs_t = tall.skeleton, sk.find_legs(tall.skeleton)
    walk = mannequin.clip('walk')
    contacts = sk.find_contacts(mannequin.skeleton, walk)
    moved = sk.Retargeter(mannequin.skeleton, ts, root_scale=1.0).clip(walk)
    foot = [j for leg in legs_t for j in range(leg.ankle, ts.subtree_end(leg.ankle))]
    times = np.arange(0, int(moved.duration * 120) + 1) / 120.0
    lowest = {}
    for floor in (False, True):
        fixed, stats = sk.restore_contacts(ts, moved, contacts, legs_t, sample_rate=120, floor=floor)
        lowest[floor] = min(np.array(fixed.sample(ts, t, loop='clamp').model())[foot, 1, 3].min() for t in times)
        assert (stats['raised'] > 0) == floor and (stats['max_raise'] > 0.02) == floor, (floor, stats)
    assert lowest[False] < -0.02 and lowest[True] >= -1e-3, lowest


def test_restore_swing_from_source(mannequin):
    """The walk retargeted onto a 2 m mannequin with its hips at the 1.8 m one's height (root_scale
    1), restored with the floor: with source=, each swing's highest ankle point above the ankle's
    median over its contacts is the source's times the leg ratio, within 10 % (measured here by
    FK; the C test test_swing covers captures on other proportions, where it matters). A source
    with another number of legs is refused."""
    tall = sk.mannequin(height=2.0)
    ts, legs_t = tall.skeleton, sk.find_legs(tall.skeleton)
    ms, legs_s = mannequin.skeleton, sk.find_legs(mannequin.skeleton)
    walk = mannequin.clip('walk')
    contacts = sk.find_contacts(ms, walk)
    moved = sk.Retargeter(ms, ts, root_scale=1.0).clip(walk)
    ratio = 2.0 / 1.8
    times = np.arange(0, int(walk.duration * 120) + 1) / 120.0

    def ankles(skel, clip, legs):
        return np.array([[np.array(clip.sample(skel, t, loop='clamp').model())[leg.ankle, 1, 3] for leg in legs]
                         for t in times])

    def peaks(y):  # per leg: highest point above the contacts' median, outside contacts (+0.1 s)
        out = []
        for leg in range(2):
            inside = np.zeros(len(times), bool)
            for c in contacts:
                if c.leg == leg:
                    inside |= (times >= c.start - 0.1) & (times <= c.end + 0.1)
            on = np.zeros(len(times), bool)
            for c in contacts:
                if c.leg == leg:
                    on |= (times >= c.start) & (times <= c.end)
            out.append(y[~inside, leg].max() - np.median(y[on, leg]))
        return np.array(out)

    src = peaks(ankles(ms, walk, legs_s)) * ratio
    got = {}
    for with_source in (False, True):
        fixed, stats = sk.restore_contacts(ts, moved, contacts, legs_t, sample_rate=120, floor=True,
                                           source=(ms, walk, legs_s, ratio) if with_source else None)
        got[with_source] = peaks(ankles(ts, fixed, legs_t)) / src
        shift = stats['swing_max_up'] + stats['swing_max_down']
        assert (shift > 0) == with_source, stats
    assert np.all(np.abs(got[True] - 1) < 0.10), got
    with pytest.raises(ValueError):
        sk.restore_contacts(ts, moved, contacts, legs_t, source=(ms, walk, legs_s[:1], ratio))


def test_retarget_pipeline_as_the_command(shared, cli, tmp_path):
    """The retarget command's pipeline in Python (docs/retarget.md, "In a program"): CMU 02_01 baked
    onto the mannequin with its rest on the ground, the capture's contacts, the feet levelled over
    them, the contacts restored with the floor and the source's swing clearance. Every joint's model
    matrix at five times equals the command's clip (skelanim retarget, loaded back) within 1e-5."""
    src = sk.load_bvh(os.path.join(shared, 'mocap', 'bvh', '02_01.bvh'), scale=0.056444)
    man = sk.mannequin()
    clip = src.clips[0]
    rt = sk.Retargeter(src.skeleton, man.skeleton, flags=('ground_rest',))
    baked = rt.clip(clip)
    maps = [rt.humanoid_map('source'), rt.humanoid_map('target')]

    def legs(m):
        return [sk.Leg(m.joints[s + '_upper_leg'], m.joints[s + '_lower_leg'], m.joints[s + '_foot'],
                       m.joints.get(s + '_toes', -1)) for s in ('left', 'right')]

    sl, tl = legs(maps[0]), sk.legs_from_mesh(man, legs(maps[1]))
    contacts = sk.find_contacts(src.skeleton, clip, sl)
    level, _ = sk.foot_level(man.skeleton, baked, tl, contacts=[(c.leg, c.start, c.end) for c in contacts])
    ratio = maps[1].leg_length() / maps[0].leg_length()
    out, stats = sk.restore_contacts(man.skeleton, level, contacts, tl, floor=True,
                                     source=(src.skeleton, clip, sl, ratio))
    assert stats['contacts'] == len(contacts) > 0 and stats['swing_max_up'] > 0, stats
    glb = str(tmp_path / 'cli.glb')
    subprocess.run([cli, 'retarget', os.path.join(shared, 'mocap', 'bvh', '02_01.bvh'), '@mannequin',
                    '--scale', '0.056444', '-o', glb], check=True, capture_output=True)
    made = sk.load_gltf(glb)
    theirs = [c for c in made.clips if c.name == '02_01'][0]
    worst = 0.0
    for t in (0.3, 0.9, 1.4, 2.0, 2.6):
        a = np.array(out.sample(man.skeleton, t, loop='clamp').model())
        b = np.array(theirs.sample(made.skeleton, t, loop='clamp').model())
        worst = max(worst, float(np.abs(a - b).max()))
    assert worst < 1e-5, worst
