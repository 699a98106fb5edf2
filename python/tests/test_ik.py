"""Joint limits, the low-level two-bone step, IK on model matrices and several effectors, against
closed forms written here (quaternions from axis and angle, Euler composition, forward kinematics in
numpy) and against the wrapped sk_ik_solve."""
import math

import numpy as np
import pytest

import skelanim as sk
from fk import model as fk_model

X, Y, Z = np.eye(3)


def aa(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.r_[axis * math.sin(angle / 2), math.cos(angle / 2)]


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def qconj(q):
    return np.array([-q[0], -q[1], -q[2], q[3]])


def euler(x, y, z):
    """rel = Rz(z) Ry(y) Rx(x) (X applied first), as the header defines EULER limits."""
    return qmul(aa(Z, z), qmul(aa(Y, y), aa(X, x)))


def euler_angles(q):
    """(x, y, z) of q = Rz Ry Rx, from its matrix (|y| < pi/2)."""
    x, y, z, w = q / np.linalg.norm(q)
    r20 = 2 * (x * z - y * w)
    r21, r22 = 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)
    r10, r00 = 2 * (x * y + z * w), 1 - 2 * (y * y + z * z)
    return np.array([math.atan2(r21, r22), -math.asin(max(-1.0, min(1.0, r20))), math.atan2(r10, r00)])


def same_rotation(a, b, atol=1e-5):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return min(np.abs(a - b).max(), np.abs(a + b).max()) < atol


def test_mannequin_limits_match_the_header(mannequin):
    """The ranges content/mannequin.h documents, joint by joint."""
    s = mannequin.skeleton
    legs, arms = sk.ik.mannequin_leg_limits(s), sk.ik.mannequin_arm_limits(s)
    want = {}
    for side in 'lr':
        want[('leg', 'thigh_' + side)] = ('euler', (-2.3, -0.6, -0.6), (0.7, 0.6, 0.6))
        want[('leg', 'shin_' + side)] = ('hinge', 0.0, 2.7)
        want[('leg', 'foot_' + side)] = ('euler', (-0.349, -0.5, -0.5), (0.873, 0.5, 0.5))
        want[('arm', 'forearm_' + side)] = ('hinge', -2.6, 0.0)
    want[('arm', 'upperarm_l')] = ('euler', (-3.1, -1.2, -0.75), (1.05, 1.2, 2.9))
    want[('arm', 'upperarm_r')] = ('euler', (-3.1, -1.2, -2.9), (1.05, 1.2, 0.75))
    seen = 0
    for kind, lims in (('leg', legs), ('arm', arms)):
        assert len(lims) == s.joint_count
        for j, lim in enumerate(lims):
            w = want.get((kind, s.names[j]))
            if w is None:
                assert lim is None, (kind, s.names[j], lim)
                continue
            assert lim.type == w[0]
            if w[0] == 'hinge':
                assert lim.axis in (None, (1.0, 0.0, 0.0))
                assert abs(lim.min - w[1]) < 1e-6 and abs(lim.max - w[2]) < 1e-6
            else:
                np.testing.assert_allclose(lim.euler_min, w[1], atol=1e-6)
                np.testing.assert_allclose(lim.euler_max, w[2], atol=1e-6)
            seen += 1
    assert seen == len(want) == 10
    with pytest.raises(sk.InvalidArgument):
        sk.ik.mannequin_leg_limits(sk.Skeleton.create([-1, 0]))


def test_hinge_clamp_closed_form():
    lim = sk.ik.Limit('hinge', axis=(1, 0, 0), min=0.0, max=1.0)
    for a in (-0.5, -0.01, 0.0, 0.3, 1.0, 1.4, 2.5):
        q = aa(X, a)
        assert same_rotation(lim.clamp(q), aa(X, min(max(a, 0.0), 1.0)))
        assert lim.check(q) == (-1e-4 <= a <= 1.0 + 1e-4), a
    # default axis (+X) when axis is None
    assert same_rotation(sk.ik.Limit('hinge', min=-0.2, max=0.2).clamp(aa(X, 0.7)), aa(X, 0.2))


def test_euler_clamp_closed_form():
    """With y inside its range the decomposition is unique: the clamp clips each angle."""
    lim = sk.ik.Limit('euler', euler_min=(-0.3, -0.4, -0.5), euler_max=(0.6, 0.4, 0.5))
    n = 0
    for x, y, z in [(1.0, 0.1, 0.2), (-0.9, -0.2, 0.4), (0.3, 0.3, 0.9), (0.2, 0.1, -1.2), (0.8, -0.3, -0.7)]:
        got = lim.clamp(euler(x, y, z))
        want = euler(min(max(x, -0.3), 0.6), y, min(max(z, -0.5), 0.5))
        assert same_rotation(got, want, 2e-5), (x, y, z, euler_angles(got))
        assert not lim.check(euler(x, y, z)) and lim.check(got)
        n += 1
    assert n == 5


def test_swing_twist_clamp_closed_form():
    lim = sk.ik.Limit('swing_twist', axis=(0, 1, 0), min=-0.2, max=0.3, cone=0.5)
    assert same_rotation(lim.clamp(aa(Y, 0.6)), aa(Y, 0.3))       # twist only
    assert same_rotation(lim.clamp(aa(Y, -0.9)), aa(Y, -0.2))
    assert same_rotation(lim.clamp(aa(X, 0.9)), aa(X, 0.5))       # swing only, about X
    assert same_rotation(lim.clamp(aa((1, 0, 1), 1.2)), aa((1, 0, 1), 0.5))
    assert lim.check(aa((1, 0, 1), 0.45)) and not lim.check(aa((1, 0, 1), 0.6))
    # swing * twist: both clamped
    assert same_rotation(lim.clamp(qmul(aa(Z, 0.8), aa(Y, 0.7))), qmul(aa(Z, 0.5), aa(Y, 0.3)))


def test_clamp_satisfies_check_and_is_idempotent():
    rng = np.random.default_rng(7)
    lims = [sk.ik.Limit('hinge', axis=(0, 0, 1), min=-0.4, max=1.1),
            sk.ik.Limit('swing_twist', axis=(0, 1, 0), min=-0.3, max=0.3, cone=0.7),
            sk.ik.Limit('euler', euler_min=(-0.5, -0.3, -0.2), euler_max=(1.0, 0.3, 0.9))]
    n = 0
    for _ in range(100):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        for lim in lims:
            c = lim.clamp(q)
            assert abs(np.linalg.norm(c) - 1) < 1e-5
            assert lim.check(c, eps=1e-3), (lim, q, c)
            assert same_rotation(lim.clamp(c), c, 1e-4)
            n += 1
    assert n == 300


def _knee_angle(rel):
    """Signed angle about +X of a rotation that has no other component."""
    return 2 * math.atan2(rel[0], rel[3])


def test_solve_respects_the_knee_hinge(mannequin):
    """CCD on the leg with the mannequin's limits: the knee stays a forward hinge in [0, 2.7] and the
    thigh and ankle within their Euler ranges (decomposed here); without limits the same targets
    bend the knee outside it at least once."""
    s = mannequin.skeleton
    chain = sk.ik.chain(s, 'thigh_l', 'foot_l')
    all_limits = sk.ik.mannequin_leg_limits(s)
    limits = [all_limits[j] for j in chain]
    rest = s.rest
    outside_unlimited, checked = 0, 0
    for target in [(0.1, 0.3, 0.35), (0.1, 0.5, -0.3), (0.15, 0.2, 0.2), (0.05, 0.6, 0.3), (0.1, 0.15, -0.1)]:
        free = s.rest_pose()
        sk.ik.solve(s, free, chain, target, solver='ccd')
        knee = qmul(qconj(rest[chain[1], 3:7]), free.r[chain[1]])
        if abs(knee[1]) > 1e-3 or abs(knee[2]) > 1e-3 or not 0 <= _knee_angle(knee) <= 2.7:
            outside_unlimited += 1
        pose = s.rest_pose()
        sk.ik.solve(s, pose, chain, target, solver='ccd', limits=limits)
        knee = qmul(qconj(rest[chain[1], 3:7]), pose.r[chain[1]])
        if knee[3] < 0:
            knee = -knee
        assert abs(knee[1]) < 1e-4 and abs(knee[2]) < 1e-4, knee
        assert -1e-4 <= _knee_angle(knee) <= 2.7 + 1e-4
        for j, lo, hi in ((chain[0], (-2.3, -0.6, -0.6), (0.7, 0.6, 0.6)),
                          (chain[2], (-0.349, -0.5, -0.5), (0.873, 0.5, 0.5))):
            e = euler_angles(qmul(qconj(rest[j, 3:7]), pose.r[j]))
            assert np.all(e >= np.array(lo) - 1e-3) and np.all(e <= np.array(hi) + 1e-3), (s.names[j], e)
        checked += 1
    assert checked == 5 and outside_unlimited >= 1
    with pytest.raises(ValueError):
        sk.ik.solve(s, s.rest_pose(), chain, (0, 0.3, 0.3), limits=limits[:2])


def test_two_bone_step_matches_the_solver(mannequin):
    """The corrections of sk_ik_two_bone, post-multiplied onto the local rotations, give the pose
    sk_ik_solve's two-bone solver writes, and the foot lands on the target (numpy FK)."""
    s = mannequin.skeleton
    chain = sk.ik.chain(s, 'thigh_l', 'foot_l')
    n = 0
    for t in (0.1, 0.5, 0.8):
        base = mannequin.clip('walk').sample(s, t)
        m = fk_model(s.parents, base.local.astype(float))
        hip = m[chain[0]][:3, 3]  # the walk carries the hips forward: targets relative to them
        for off, pole in [((0.02, -0.5, 0.05), (0.1, 0.0, 1.0)), ((-0.05, -0.6, -0.1), None)]:
            target = hip + np.array(off)
            if pole is not None:
                pole = hip + np.array(pole)
            qa, qb, reached = sk.ik.two_bone(*(m[j] for j in chain), target, pole=pole)
            assert reached
            mine = base.copy()
            mine.r[chain[0]] = qmul(base.r[chain[0]], qa)
            mine.r[chain[1]] = qmul(base.r[chain[1]], qb)
            tip = fk_model(s.parents, mine.local.astype(float))[chain[2]][:3, 3]
            assert np.linalg.norm(tip - target) < 1e-4
            ref = base.copy()
            sk.ik.solve(s, ref, chain, target, solver='twobone', pole=pole)
            for j in chain[:2]:
                assert same_rotation(mine.r[j], ref.r[j], 1e-4)
            n += 1
    assert n == 6
    with pytest.raises(ValueError):
        sk.ik.two_bone(*(m[j] for j in chain), (math.nan, 0, 0))


def test_solve_on_model_matrices_equals_solve(mannequin):
    """sk_ik_solve_model with the character placed by a root matrix and a world-space target equals
    sk_ik_solve with the target brought into model space; the returned matrices are the solved
    pose's forward kinematics."""
    s = mannequin.skeleton
    chain = sk.ik.chain(s, 'upperarm_r', 'hand_r')
    root = np.eye(4)
    root[:3, :3] = fk_model([-1], np.array([[0, 0, 0, *aa(Y, 0.8), 1, 1, 1]]))[0][:3, :3]
    root[:3, 3] = (2.0, 0.1, -1.0)
    n = 0
    for t in (0.2, 0.7):
        pose = mannequin.clip('run').sample(s, t)
        target_model = np.array([-0.35, 1.1, 0.25])
        target_world = (root @ np.r_[target_model, 1])[:3]
        ref = pose.copy()
        want = sk.ik.solve(s, ref, chain, target_model, solver='fabrik')
        got = sk.ik.solve(s, pose, chain, target_world, solver='fabrik', model=pose.model(root), root=root)
        np.testing.assert_allclose(pose.local, ref.local, atol=2e-5)
        assert abs(got['error'] - want['error']) < 1e-4
        np.testing.assert_allclose(got['model'], fk_model(s.parents, pose.local.astype(float), root), atol=2e-5)
        n += 1
    assert n == 2


def test_several_effectors(mannequin):
    """Both hands from the chest: each lands within the reported error of its target (numpy FK),
    and joints outside the chest's subtree keep their pose."""
    s = mannequin.skeleton
    pose = s.rest_pose()
    before = pose.local.copy()
    targets = {'hand_l': (0.3, 1.15, 0.3), 'hand_r': (-0.3, 1.15, 0.3)}
    r = sk.ik.solve_multi(s, pose, 'chest', targets)
    m = fk_model(s.parents, pose.local.astype(float))
    errs = [np.linalg.norm(m[s.find(j)][:3, 3] - np.array(t)) for j, t in targets.items()]
    assert max(errs) <= r['error'] + 1e-5 and r['error'] < 5e-3, (errs, r)
    chest = s.find('chest')
    outside = [j for j in range(s.joint_count) if not chest <= j < s.subtree_end(chest)]
    np.testing.assert_array_equal(pose.local[outside], before[outside])
    with pytest.raises(sk.InvalidArgument):
        sk.ik.solve_multi(s, s.rest_pose(), 'chest', {'foot_l': (0, 0, 0)})  # not under the chest
    with pytest.raises(ValueError):
        sk.ik.solve_multi(s, s.rest_pose(), 'chest', {'hand_l': (0, math.inf, 0)})


def test_limit_bad_input():
    with pytest.raises(ValueError):
        sk.ik.Limit('cone')
    with pytest.raises(ValueError):
        sk.ik.Limit('hinge', min=math.nan).clamp((0, 0, 0, 1))
    with pytest.raises(ValueError):
        sk.ik.Limit('hinge').clamp((0, 0, 1))
