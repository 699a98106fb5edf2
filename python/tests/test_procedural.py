"""The IK-only procedural walker over stairs, jumping and pointing: its feet against the terrain's
own height query, the support foot pinned, contact events on the ground, its matrices against
forward kinematics of its pose, arm limits checked on the rotations it writes."""
import math

import numpy as np
import pytest

import skelanim as sk
from skelanim.procedural import straight_path

ARMS = [('upperarm_l', 'forearm_l', 'hand_l'), ('upperarm_r', 'forearm_r', 'hand_r')]


def test_walks_up_stairs(mannequin):
    """Six 15 cm steps: no heel or toe below the ground, the support foot does not move while it
    stands, every foot-down event on the ground, the body ends on the top floor, the matrices are
    the pose's forward kinematics under the state's root."""
    s = mannequin.skeleton
    stairs = sk.Terrain.stairs(rise=0.15, run=0.3, start=(0, 0, 1.0), direction=(0, 0, 1), count=6)
    w = sk.ProceduralWalker(s, arms=ARMS, terrain=stairs)
    w.reset(0.0, 0.0, 0.0)
    assert w.model is None  # before the first update
    prev, pinned, downs, lowest, frames = None, 0, 0, 0.0, 0
    for x, z, yaw in straight_path(1.2, 5.0):
        w.update(1 / 60, x, z, yaw)
        st = w.state
        for f in st['feet']:
            for p in (f['heel'], f['toe']):
                lowest = min(lowest, p[1] - stairs.height(p[0], p[2]))
            if f['event'] is not None and f['event']['kind'] == 'down':
                e = f['event']['position']
                assert abs(e[1] - stairs.height(e[0], e[2])) < 1e-3
                downs += 1
        if prev is not None:
            for k in range(2):
                if st['feet'][k]['stance'] and prev['feet'][k]['stance']:
                    np.testing.assert_allclose(st['feet'][k]['heel'], prev['feet'][k]['heel'], atol=1e-5)
                    pinned += 1
        np.testing.assert_allclose(st['position'][[0, 2]], (x, z), atol=1e-4)
        np.testing.assert_allclose(w.model, sk.local_to_model(s, w.pose, st['root']), atol=1e-5)
        prev = st
        frames += 1
    assert frames == 300 and pinned > 100 and downs >= 6
    assert lowest > -1e-3, lowest
    top = stairs.height(0.0, 6.0)
    assert abs(top - 0.9) < 1e-5 and abs(st['position'][1] - top) < 0.01 and st['mode'] == 'walking'


def test_jump(mannequin):
    s = mannequin.skeleton
    w = sk.ProceduralWalker(s, arms=ARMS)
    w.reset()
    w.update(1 / 60, 0, 0)
    assert w.jump()
    modes, highest = [], 0.0
    for _ in range(150):
        w.update(1 / 60, 0, 0)
        st = w.state
        if not modes or modes[-1] != st['mode']:
            modes.append(st['mode'])
        if st['mode'] == 'airborne':
            assert not w.jump()
            highest = max(highest, min(f['heel'][1] for f in st['feet']))
    assert modes == ['crouching', 'airborne', 'landing', 'standing']
    assert highest > 0.05  # both feet off the ground


def _angle(a, b):
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    return math.degrees(math.acos(max(-1.0, min(1.0, float(a @ b)))))


def test_point_at(mannequin):
    """A target ahead: the left arm straightens along the line from the shoulder to it. A target
    behind with the mannequin's arm limits: the shoulder and elbow rotations stay inside them."""
    s = mannequin.skeleton
    w = sk.ProceduralWalker(s, arms=ARMS)
    w.reset()
    target = np.array([1.0, 1.5, 1.0])
    w.point_at(0, target)
    for _ in range(30):
        w.update(1 / 60, 0, 0)
    m = w.model
    sh, hand = m[s.find('upperarm_l')][:3, 3], m[s.find('hand_l')][:3, 3]
    assert _angle(hand - sh, target - sh) < 1.0
    w.point_at(0, None)
    limits = sk.ik.mannequin_arm_limits(s)
    outside = {}
    for lim in (None, limits):
        lw = sk.ProceduralWalker(s, arms=ARMS, limits=lim)
        lw.reset()
        lw.point_at(1, (-0.6, 1.2, -1.5))
        n = 0
        for _ in range(40):
            lw.update(1 / 60, 0, 0)
            for name in ('upperarm_r', 'forearm_r'):
                j = s.find(name)
                # the rest rotations are the identity: the limit's rel is the local rotation
                n += not limits[j].check(lw.pose.r[j], eps=2e-3)
        outside[lim is None] = n
    assert outside[True] >= 40 and outside[False] == 0  # outside without the limits, never with them
    with pytest.raises(ValueError):
        w.point_at(2, target)
    with pytest.raises(ValueError):
        w.point_at(0, target, weight=1.5)
    with pytest.raises(ValueError):
        w.point_at(0, (math.nan, 0, 0))


def test_bad_input(mannequin):
    s = mannequin.skeleton
    w = sk.ProceduralWalker(s)
    w.reset()
    with pytest.raises(sk.InvalidArgument):
        w.update(0.0, 0, 0)
    with pytest.raises(ValueError):
        w.update(1 / 60, math.inf, 0)
    with pytest.raises(ValueError):
        sk.ProceduralWalker(s, legs=sk.find_legs(s)[:1])
    with pytest.raises(TypeError):
        sk.ProceduralWalker(s, stride=2.0)
    with pytest.raises(ValueError):
        sk.ProceduralWalker(s, step_length=math.nan)


def test_crouch(mannequin):
    """Crouched under 1.3 m: the highest joint's world height from the walker's own matrices stays
    under it once the crouch has come on, the state says how deep, the torso leans forward (the
    body -> head direction against the vertical); standing up again restores the height; bad
    heights are refused."""
    s = mannequin.skeleton
    w = sk.ProceduralWalker(s, arms=ARMS)
    w.reset(0.0, 0.0, 0.0)
    w.crouch(1.3)
    tops, frames = [], 0
    for x, z, yaw in straight_path(1.0, 4.0):
        w.update(1 / 60, x, z, yaw)
        frames += 1
        if frames > 60:
            tops.append(float(w.model[:, 1, 3].max()))
    assert frames > 200 and max(tops) <= 1.3 + 1e-3, max(tops)
    st = w.state
    assert st['crouch'] > 0.1 and st['lean_pitch'] > 0.2
    w.crouch(0)
    for _ in range(60):
        w.update(1 / 60, x, z, yaw)
    assert w.state['crouch'] == 0.0 and w.model[:, 1, 3].max() > 1.45
    for bad in (-1.0, float('nan'), float('inf')):
        with pytest.raises(ValueError):
            w.crouch(bad)


def test_look_at(mannequin):
    """The head's forward (its rest +Z carried by its world matrix) points at a target ahead and to
    the left while standing; weight 0.5 turns it about half as far; bad input is refused."""
    s = mannequin.skeleton
    w = sk.ProceduralWalker(s, arms=ARMS)
    w.reset(0.0, 0.0, 0.0)
    w.update(1 / 60, 0.0, 0.0, 0.0)
    m0 = w.model
    top = int(np.argmax(m0[:, 1, 3]))
    rest_fwd = m0[top, :3, :3].T @ np.array([0.0, 0.0, 1.0])  # standing at yaw 0: the head faces +Z
    def head_fwd():
        f = w.model[top, :3, :3] @ rest_fwd
        return f / np.linalg.norm(f)
    target = np.array([1.0, 1.5, 2.0])
    w.look_at(target)
    for _ in range(5):
        w.update(1 / 60, 0.0, 0.0, 0.0)
    to = target - w.model[top, :3, 3]
    assert np.degrees(np.arccos(np.clip(head_fwd() @ (to / np.linalg.norm(to)), -1, 1))) < 1.0
    full = np.arccos(np.clip(head_fwd() @ np.array([0.0, 0.0, 1.0]), -1, 1))
    w.look_at(target, 0.5)
    w.update(1 / 60, 0.0, 0.0, 0.0)
    half = np.arccos(np.clip(head_fwd() @ np.array([0.0, 0.0, 1.0]), -1, 1))
    assert abs(half - 0.5 * full) < 0.05
    for bad in ((float('nan'), 0.0, 0.0),):
        with pytest.raises(ValueError):
            w.look_at(bad)
    with pytest.raises(ValueError):
        w.look_at(target, 2.0)
    w.look_at(None)


def test_push(mannequin):
    """A 0.5 m/s push while standing: the body's offset grows, the walker steps, the offset comes
    back under 1 cm within 2 s with every heel and toe over the ground; a 4 m/s push ends lying
    (mode 'fallen', the torso near the horizontal); bad pushes are refused."""
    s = mannequin.skeleton
    w = sk.ProceduralWalker(s, arms=ARMS)
    w.reset(0.0, 0.0, 0.0)
    for _ in range(30):
        w.update(1 / 60, 0.0, 0.0, 0.0)
    w.push((0.0, 0.0, 0.5))
    peak, downs = 0.0, 0
    for _ in range(120):
        w.update(1 / 60, 0.0, 0.0, 0.0)
        st = w.state
        peak = max(peak, float(np.linalg.norm(st['push_offset'])))
        downs += sum(1 for f in st['feet'] if f['event'] is not None and f['event']['kind'] == 'down')
        assert min(min(f['heel'][1], f['toe'][1]) for f in st['feet']) > -1e-3
    assert peak > 0.02 and downs >= 1 and np.linalg.norm(w.state['push_offset']) < 0.01
    w.push((4.0, 0.0, 0.0))
    for _ in range(90):
        w.update(1 / 60, 0.0, 0.0, 0.0)
    assert w.state['mode'] == 'fallen'
    m = w.model
    top = int(np.argmax(m[:, 1, 3]))
    assert m[:, 1, 3].min() > -1e-3 and m[top, 1, 3] < 0.7  # lying: nothing high (standing: 1.57), nothing under
    with pytest.raises(ValueError):
        w.push((float('nan'), 0.0, 0.0))
    with pytest.raises(ValueError):
        w.push((0.0, 0.0, 60.0))
