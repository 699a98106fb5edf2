"""Players, markers, synchronised playback, faders, masks, additive poses, layers and root motion,
against the time model, event rule and formulas their headers state (written out here) and numpy."""
import math

import numpy as np
import pytest

import skelanim as sk
from skelanim import layers as L
from skelanim import playback as P


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def qconj(q):
    return np.array([-q[0], -q[1], -q[2], q[3]])


def slerp_identity(q, w):
    """slerp(identity, q, w) for a unit q (shortest arc)."""
    q = np.asarray(q, float)
    if q[3] < 0:
        q = -q
    ang = 2 * math.acos(min(1.0, q[3]))
    if ang < 1e-9:
        return np.array([0, 0, 0, 1.0])
    axis = q[:3] / math.sin(ang / 2)
    return np.r_[axis * math.sin(w * ang / 2), math.cos(w * ang / 2)]


def same_rotation(a, b, atol=1e-5):
    return min(np.abs(np.asarray(a) - b).max(), np.abs(np.asarray(a) + b).max()) < atol


# ---- players ---------------------------------------------------------------------------------------

def test_player_time_model():
    """REPEAT wraps at d, PING_PONG plays back over (d, 2d), CLAMP stops at d; speed scales, a
    negative speed plays backwards; pause stops; seek and seek_phase jump."""
    p = sk.Player(1.0, speed=1.5)
    for _ in range(3):
        p.advance(0.5)
    assert abs(p.unrolled - 2.25) < 1e-12 and abs(p.clip_time - 0.25) < 1e-12 and p.cycle == 2
    assert abs(p.phase - 0.25) < 1e-12
    pp = sk.Player(1.0, loop='ping_pong')
    pp.advance(1.3)
    assert abs(pp.period - 2.0) < 1e-12 and abs(pp.clip_time - 0.7) < 1e-12 and abs(pp.phase - 0.65) < 1e-12
    c = sk.Player(1.0, loop='clamp')
    c.advance(0.4)
    assert not c.finished
    c.advance(2.0)
    assert c.finished and c.clip_time == 1.0
    b = sk.Player(1.0, speed=-1.0, start_time=0.2)
    b.advance(0.5)
    assert abs(b.clip_time - 0.7) < 1e-12 and b.cycle == -1
    b.paused = True
    b.advance(0.3)
    assert abs(b.clip_time - 0.7) < 1e-12
    b.step(0.1)  # a local step ignores the pause
    assert abs(b.clip_time - 0.8) < 1e-12
    b.seek(0.45)
    assert abs(b.clip_time - 0.45) < 1e-12 and b.cycle == -1
    b.seek_phase(0.6)
    assert abs(b.phase - 0.6) < 1e-12
    b.speed = -2.5
    assert b.speed == -2.5
    with pytest.raises(ValueError):
        b.advance(float('nan'))
    with pytest.raises(ValueError):
        b.speed = float('inf')


def _expected_events(markers, a, b, period):
    """The event rule for a forward REPEAT step over the unrolled interval (a, b]: each marker time
    m + k * period inside it, in order, with its cycle k and step fraction."""
    out = []
    for k in range(int(math.floor(a / period)) - 1, int(math.ceil(b / period)) + 1):
        for i, (name, m) in enumerate(markers):
            u = k * period + m
            if a < u <= b + 1e-12:
                out.append((u, name, i, k, (u - a) / (b - a)))
    return sorted(out)


def test_markers_follow_the_event_rule():
    markers = [('step_l', 0.25), ('step_r', 0.75)]
    p = sk.Player(1.0, markers=markers)
    a, n = 0.0, 0
    for dt in (0.25, 0.1, 1.7, 0.45, 3.3):  # the first lands exactly on a marker; one wraps 3 loops
        ev = p.advance(dt)
        want = _expected_events(markers, a, a + dt, 1.0)
        assert [(e.name, e.marker, e.cycle) for e in ev] == [(w[1], w[2], w[3]) for w in want]
        for e, w in zip(ev, want):
            assert abs(e.step_fraction - w[4]) < 1e-9 and e.direction == 1
            assert e.clip_time == markers[e.marker][1]
        a += dt
        n += len(ev)
    assert n == 1 + 0 + 4 + 1 + 6
    back = sk.Player(1.0, markers=markers, start_time=0.5, speed=-1)
    ev = back.advance(0.5)
    assert [(e.name, e.direction) for e in ev] == [('step_l', -1)]
    assert len(sk.Player(1.0, markers=markers).advance(10.0, max_events=3)) == 3
    with pytest.raises(sk.InvalidArgument):
        sk.Player(1.0, markers=[('a', 0.7), ('b', 0.2)])  # not sorted
    with pytest.raises(sk.InvalidArgument):
        sk.Player(1.0, markers=[('a', 1.5)])


def test_synced_players_share_a_phase():
    """A 1.0 s and a 0.7 s cycle blended 50/50 both complete a cycle every 0.85 s."""
    a, b = sk.Player(1.0), sk.Player(0.7)
    step = sk.advance_synced([a, b], [0.5, 0.5], 0.17)
    assert abs(step - 0.17 / 0.85) < 1e-9
    assert abs(a.phase - 0.2) < 1e-9 and abs(b.phase - 0.2) < 1e-9
    step = sk.advance_synced([a, b], [1.0, 3.0], 0.1)
    assert abs(step - 0.1 / (0.25 * 1.0 + 0.75 * 0.7)) < 1e-9
    assert abs(a.phase - b.phase) < 1e-9


# ---- faders ----------------------------------------------------------------------------------------

def test_fade_curves():
    for x in (-0.5, 0.0, 0.3, 0.5, 0.9, 1.0, 2.0):
        c = min(max(x, 0.0), 1.0)
        assert abs(P.fade_eval('linear', x) - c) < 1e-7
        assert abs(P.fade_eval('smoothstep', x) - (3 * c * c - 2 * c ** 3)) < 1e-6


def test_fader_weights():
    """The target fades in along the curve; the others fade out from the weights they had when the
    transition began, in proportion; the weights sum to 1 throughout."""
    f = sk.Fader(1)
    assert f.weights == {1: 1.0} and not f.in_transition
    f.start(2, 1.0)
    f.update(0.25)
    assert abs(f.weight(2) - 0.25) < 1e-6 and abs(f.weight(1) - 0.75) < 1e-6 and f.in_transition
    start = f.weights
    f.start(3, 2.0, curve='smoothstep')  # interrupted: fade out from 0.75 / 0.25
    elapsed = 0.0
    for t in (0.5, 1.0, 1.7):
        f.update(t - elapsed)
        elapsed = t
        c = 3 * (t / 2) ** 2 - 2 * (t / 2) ** 3
        w = f.weights
        assert abs(w[3] - c) < 1e-5
        for i in (1, 2):
            assert abs(w[i] - start[i] * (1 - c)) < 1e-5, (t, w)
        assert abs(sum(w.values()) - 1) < 1e-6
    f.update(1.0)
    assert f.weights == {3: 1.0} and not f.in_transition
    f.start(4, 0.0)  # a cut
    assert f.weights == {4: 1.0} and f.weight(3) == 0.0


# ---- masks, additive poses, layers -------------------------------------------------------------------

def _descendants(skeleton, joint):
    """joint and every joint whose parent chain reaches it (walked here)."""
    out = []
    for j in range(skeleton.joint_count):
        k = j
        while k >= 0 and k != joint:
            k = skeleton.parents[k]
        if k == joint:
            out.append(j)
    return out


def test_masks(mannequin):
    s = mannequin.skeleton
    m = sk.mask(s, 0.0, subtree='upperarm_l', set_to=0.8)
    want = np.zeros(s.joint_count, np.float32)
    want[_descendants(s, s.find('upperarm_l'))] = 0.8
    np.testing.assert_array_equal(m, want)
    assert (m > 0).sum() == 3
    L.set_joints(s, m, ['head', 'neck'], 0.5)
    want[[s.find('head'), s.find('neck')]] = 0.5
    np.testing.assert_array_equal(m, want)
    np.testing.assert_array_equal(sk.mask(s, 0.3), np.full(s.joint_count, 0.3, np.float32))
    with pytest.raises(sk.InvalidArgument) as e:
        sk.mask(s, subtree='tail')
    assert 'tail' in str(e.value)
    with pytest.raises(ValueError):
        L.set_subtree(s, np.zeros(3, np.float32), 'hips', 1.0)


def test_additive_closed_form(mannequin):
    s = mannequin.skeleton
    ref = mannequin.clip('idle').sample(s, 0.0)
    pose = mannequin.clip('crouch').sample(s, 1.2)
    pose.s[5] = (1.2, 0.9, 1.0)  # a scale, to check the division
    d = sk.make_additive(s, pose, ref)
    np.testing.assert_allclose(d.t, pose.t - ref.t, atol=1e-6)
    np.testing.assert_allclose(d.s, pose.s / ref.s, atol=1e-6)
    for j in range(s.joint_count):
        assert same_rotation(d.r[j], qmul(qconj(ref.r[j]), pose.r[j]))
    back = sk.apply_additive(s, ref.copy(), d, 1.0)  # reference (+) delta = pose
    np.testing.assert_allclose(back.t, pose.t, atol=1e-6)
    np.testing.assert_allclose(back.s, pose.s, atol=1e-6)
    for j in range(s.joint_count):
        assert same_rotation(back.r[j], pose.r[j], 1e-5)
    mask = sk.mask(s, 0.0, subtree='chest', set_to=1.0)
    half = sk.apply_additive(s, ref.copy(), d, 0.5, mask=mask)
    for j in range(s.joint_count):
        w = 0.5 * mask[j]
        np.testing.assert_allclose(half.t[j], ref.t[j] + w * d.t[j], atol=1e-6)
        np.testing.assert_allclose(half.s[j], ref.s[j] * (1 + w * (d.s[j] - 1)), atol=1e-6)
        assert same_rotation(half.r[j], qmul(ref.r[j], slerp_identity(d.r[j], w)), 2e-5)
    # nlerp=True: the delta's rotation by (1 - w) identity + w dr (dr.w >= 0), normalised
    fast = sk.apply_additive(s, ref.copy(), d, 0.5, mask=mask, nlerp=True)
    for j in range(s.joint_count):
        w = 0.5 * mask[j]
        np.testing.assert_allclose(fast.t[j], half.t[j], atol=0)
        dr = d.r[j] if d.r[j][3] >= 0 else -d.r[j]
        q = w * dr + (1 - w) * np.array([0, 0, 0, 1.0])
        assert same_rotation(fast.r[j], qmul(ref.r[j], q / np.linalg.norm(q)), 2e-5)
    with pytest.raises(ValueError):
        sk.apply_additive(s, ref.copy(), d, float('nan'))
    with pytest.raises(ValueError):
        sk.apply_additive(s, ref.copy(), d, 1.0, mask=np.ones(3))


def test_layer_stack(mannequin):
    """An override layer on the left arm replaces it (weight 1) or nlerps toward it; an additive
    layer equals apply_additive; the layers run in order."""
    s = mannequin.skeleton
    base = mannequin.clip('walk').sample(s, 0.3)
    over = mannequin.clip('crouch').sample(s, 1.0)
    arm = sk.mask(s, 0.0, subtree='upperarm_l', set_to=1.0)
    out = sk.apply_layers(s, base.copy(), [sk.Layer(over, 1.0, mask=arm)])
    inside = arm > 0
    np.testing.assert_allclose(out.local[inside], over.local[inside], atol=1e-6)
    np.testing.assert_array_equal(out.local[~inside], base.local[~inside])
    half = sk.apply_layers(s, base.copy(), [sk.Layer(over, 0.4, mask=arm)])
    w = 0.4 * arm[:, None]
    np.testing.assert_allclose(half.t, (1 - w) * base.t + w * over.t, atol=1e-6)
    for j in np.nonzero(inside)[0]:
        b, o = base.r[j], over.r[j]
        o = o if np.dot(b, o) >= 0 else -o
        q = 0.6 * b + 0.4 * o
        assert same_rotation(half.r[j], q / np.linalg.norm(q))
    delta = sk.make_additive(s, mannequin.clip('crouch').sample(s, 1.0), mannequin.clip('idle').sample(s, 0.0))
    two = sk.apply_layers(s, base.copy(), [sk.Layer(over, 1.0, mask=arm), sk.Layer(delta, 0.7, mode='additive')])
    want = sk.apply_additive(s, out.copy(), delta, 0.7)
    np.testing.assert_allclose(two.local, want.local, atol=1e-6)
    fast = sk.apply_layers(s, base.copy(), [sk.Layer(over, 1.0, mask=arm), sk.Layer(delta, 0.7, mode='additive_nlerp')])
    np.testing.assert_array_equal(fast.local, sk.apply_additive(s, out.copy(), delta, 0.7, nlerp=True).local)
    with pytest.raises(ValueError):
        sk.Layer(over, mode='multiply')
    with pytest.raises(ValueError):
        sk.apply_layers(s, base.copy(), [sk.Layer(over, float('inf'))])


# ---- root motion -------------------------------------------------------------------------------------

def rot_y(yaw, v):
    """v turned by yaw about +Y (right-handed: +Z turns toward +X for a positive yaw)."""
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([c * v[0] + s * v[2], v[1], -s * v[0] + c * v[2]])


def heading(q):
    """The yaw of a rotation: the angle about +Y of its forward (+Z) axis projected on XZ."""
    x, y, z, w = (float(v) for v in q)
    return math.atan2(2 * (x * z + y * w), 1 - 2 * (x * x + y * y))


def test_root_motion_of_the_walk(mannequin):
    """The walk's hips move forward and sway: between two times the delta is the hips' XZ
    displacement in the root's frame at the start (turned back by the hips' heading then), the yaw
    the change of heading; a player step over a loop wrap is one whole cycle plus the rest (the
    cycle ends at the heading it starts with); strip keeps the first frame's XZ."""
    s, walk = mannequin.skeleton, mannequin.clip('walk')
    rm = sk.RootMotion(walk, s, 'hips')
    hips = s.find('hips')
    assert rm.joint == hips
    d = walk.duration

    def hxz(t):
        p = walk.sample(s, t, loop='clamp').t[hips]
        return np.array([p[0], 0.0, p[2]])

    def yaw_at(t):
        return heading(walk.sample(s, t, loop='clamp').r[hips])

    turned = 0
    for a, b in ((0.0, d), (0.1, 0.6), (0.7, 0.2)):
        t, yaw = rm.between(a, b)
        np.testing.assert_allclose(t, rot_y(-yaw_at(a), hxz(b) - hxz(a)), atol=1e-5)
        assert abs(yaw - (yaw_at(b) - yaw_at(a))) < 1e-5
        turned += abs(yaw) > 0.05
    assert turned == 2 and abs(yaw_at(d) - yaw_at(0)) < 1e-6
    cycle = hxz(d) - hxz(0)
    assert np.linalg.norm(cycle) > 1.0  # 1.4 m/s over about one second
    p = sk.Player(walk)
    p.advance(0.2 * d)
    before = p.copy()
    p.advance(1.5 * d)  # wraps once
    t, yaw = rm.delta(before, p)
    np.testing.assert_allclose(t, rot_y(-yaw_at(0.2 * d), cycle + hxz(0.7 * d) - hxz(0.2 * d)), atol=1e-4)
    assert abs(yaw - (yaw_at(0.7 * d) - yaw_at(0.2 * d))) < 1e-5
    pose = walk.sample(s, 0.55 * d)
    y = pose.t[hips, 1]
    rm.strip(pose)
    np.testing.assert_allclose(pose.t[hips, [0, 2]], walk.sample(s, 0.0).t[hips, [0, 2]], atol=1e-6)
    assert pose.t[hips, 1] == y


def test_root_deltas_compose():
    a = ((0.3, 0.0, 1.0), 0.4)
    b = ((-0.2, 0.0, 0.5), -1.1)
    t, yaw = L.delta_compose(a, b)
    np.testing.assert_allclose(t, np.array(a[0]) + rot_y(a[1], b[0]), atol=1e-6)
    assert abs(yaw - (a[1] + b[1])) < 1e-6
    t, yaw = L.delta_compose(a, L.delta_inverse(a))
    np.testing.assert_allclose(t, 0, atol=1e-6)
    assert abs(yaw) < 1e-6
    assert L.delta_identity() == ((0.0, 0.0, 0.0), 0.0)
    t, yaw = L.delta_blend([a, b], [1.0, 3.0])
    np.testing.assert_allclose(t, (np.array(a[0]) + 3 * np.array(b[0])) / 4, atol=1e-6)
    assert abs(yaw - (a[1] + 3 * b[1]) / 4) < 1e-6
    assert L.delta_blend([a, b], [0.0, 0.0]) == L.delta_identity()
    with pytest.raises(ValueError):
        L.delta_compose(((0, 0, float('nan')), 0), a)
