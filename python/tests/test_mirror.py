"""Humanoid maps (found by names and by topology, edited, checked), mirror pairs and mirrored clips,
against detections written here (side tokens swapped in the names), the leg length from the rest
pose, and the mirror's definition in model space (anim/mirror.h) evaluated with numpy FK."""
import math

import numpy as np
import pytest

import skelanim as sk
from fk import model as fk_model

M = np.diag([-1.0, 1.0, 1.0])  # the reflection across x = 0


def test_bones_and_their_mirrors():
    assert sk.mirror.BONES[0] == 'hips' and len(sk.mirror.BONES) == 22
    for b in sk.mirror.BONES:
        m = sk.bone_mirror(b)
        want = b.replace('left', 'RIGHT').replace('right', 'left').replace('RIGHT', 'right')
        assert m == want and sk.bone_mirror(m) == b
    assert sk.bone_mirror('LEFT_HAND') == 'right_hand'
    required = {b for b in sk.mirror.BONES if sk.bone_required(b)}
    assert required == {'hips', 'spine', 'head'} | {'%s_%s' % (s, p) for s in ('left', 'right') for p in (
        'upper_arm', 'lower_arm', 'hand', 'upper_leg', 'lower_leg', 'foot')}
    with pytest.raises(KeyError):
        sk.bone_mirror('tail')


def test_map_by_names_and_by_topology(mannequin):
    """The mannequin's names give the map; the same skeleton with its joints renamed j0, j1, ...
    gives the same joints by topology (left = +X, the mannequin's left)."""
    s = mannequin.skeleton
    named = sk.HumanoidMap.find(s)
    named.check()
    assert named.scheme == 'skelanim' and set(named.how.values()) == {'name'}
    pairs = {'hips': 'hips', 'spine': 'spine', 'head': 'head', 'left_upper_leg': 'thigh_l', 'left_lower_leg': 'shin_l',
             'left_foot': 'foot_l', 'right_hand': 'hand_r', 'left_upper_arm': 'upperarm_l', 'right_toes': 'toe_r'}
    for bone, joint in pairs.items():
        assert named[bone] == s.find(joint), bone
    anon = sk.Skeleton.create(s.parents, names=['j%d' % j for j in range(s.joint_count)], rest=s.rest)
    topo = sk.HumanoidMap.find(anon)
    topo.check()
    assert topo.scheme == 'topology' and set(topo.how.values()) == {'topology'}
    req = [b for b in sk.mirror.BONES if sk.bone_required(b)]
    for b in req:
        assert topo[b] == named[b], (b, topo[b], named[b])
    assert len(req) == 15


def test_leg_length_from_the_rest_pose(mannequin):
    s = mannequin.skeleton
    m = sk.HumanoidMap.find(s)
    w = fk_model(s.parents, s.rest.astype(float))
    pos = {b: w[m[b]][:3, 3] for b in m.joints}
    want = np.mean([np.linalg.norm(pos[side + '_upper_leg'] - pos[side + '_lower_leg']) +
                    np.linalg.norm(pos[side + '_lower_leg'] - pos[side + '_foot']) for side in ('left', 'right')])
    assert abs(m.leg_length() - want) < 1e-6 and abs(want - 0.85) < 1e-6
    small = sk.mannequin(height=1.5).skeleton
    assert abs(sk.HumanoidMap.find(small).leg_length() - 0.85 * 1.5 / 1.8) < 1e-4


def test_set_and_check(mannequin):
    s = mannequin.skeleton
    m = sk.HumanoidMap.find(s)
    bad = m.copy()
    bad.set('left_hand', 'foot_l')  # a hand under the leg, and foot_l twice
    assert bad['left_hand'] == s.find('foot_l') and bad.how['left_hand'] == 'user'
    with pytest.raises(sk.Error) as e:
        bad.check()
    assert e.value.message
    m.check()  # the copy was edited, not the original
    bad.set('left_hand', None)
    assert bad['left_hand'] == -1
    with pytest.raises(sk.Error):
        bad.check()  # a required bone is missing
    with pytest.raises(sk.InvalidArgument) as e:
        bad.set('left_hand', 'no_such_joint')
    assert 'no_such_joint' in str(e.value)


def _partners_by_name(skeleton):
    """Left/right partners by swapping _l/_r in the names (the mannequin's scheme)."""
    out = []
    for j, n in enumerate(skeleton.names):
        if n.endswith('_l'):
            out.append((j, skeleton.find(n[:-2] + '_r')))
    return sorted(out)


def test_mirror_pairs(mannequin):
    s = mannequin.skeleton
    want = _partners_by_name(s)
    assert len(want) == 8
    for humanoid in (None, sk.HumanoidMap.find(s)):
        got = sorted(map(tuple, sk.mirror_pairs(s, humanoid).tolist()))
        assert got == want


def test_mirrored_clip_is_the_reflection(mannequin):
    """position'(j') = M position(j) and rotation'(j') = M rotation(j) M (the mannequin's rest
    rotations are the identity) for every joint and partner, at 5 times of 2 clips; mirroring twice
    gives the source back; the mirrored left strafe is the right strafe."""
    s = mannequin.skeleton
    partner = np.arange(s.joint_count)
    for a, b in _partners_by_name(s):
        partner[a], partner[b] = b, a
    assert np.allclose(s.rest[:, 3:7], [0, 0, 0, 1])
    checked = 0
    for name in ('walk', 'strafe_left'):
        clip = mannequin.clip(name)
        mir = sk.mirror_clip(clip, s)
        assert mir.name == name + '_mirrored' and abs(mir.duration - clip.duration) < 1e-6
        back = sk.mirror_clip(mir, s, name='back')
        for t in np.linspace(0, clip.duration, 5):
            src = fk_model(s.parents, clip.sample(s, t).local.astype(float))
            got = fk_model(s.parents, mir.sample(s, t).local.astype(float))
            for j in range(s.joint_count - 1):  # the last joint is the mesh node
                np.testing.assert_allclose(got[partner[j]][:3, 3], M @ src[j][:3, 3], atol=1e-5)
                np.testing.assert_allclose(got[partner[j]][:3, :3], M @ src[j][:3, :3] @ M, atol=1e-5)
                checked += 1
            np.testing.assert_allclose(back.sample(s, t).local, clip.sample(s, t).local, atol=2e-5)
    assert checked == 2 * 5 * 21
    left, right = mannequin.clip('strafe_left'), mannequin.clip('strafe_right')
    mir = sk.mirror_clip(left, s)
    for t in np.linspace(0, left.duration, 7):
        a = fk_model(s.parents, mir.sample(s, t).local.astype(float))
        b = fk_model(s.parents, right.sample(s, t).local.astype(float))
        assert np.abs(a[:, :3, 3] - b[:, :3, 3]).max() < 1e-4


def test_mirror_errors(mannequin):
    s, walk = mannequin.skeleton, mannequin.clip('walk')
    with pytest.raises(ValueError):
        sk.mirror_clip(walk, s, axis='w')
    with pytest.raises(sk.InvalidArgument) as e:
        sk.mirror_clip(walk, s, pairs=[[13, 17], [13, 18]])  # a joint twice
    assert e.value.message
    with pytest.raises(sk.InvalidArgument):
        sk.mirror_clip(walk, s, pairs=[[13, 999]])
    with pytest.raises(ValueError):
        sk.mirror_clip(walk, s, pairs=[[13, -1]])
    with pytest.raises(sk.InvalidArgument):
        sk.mirror_clip(walk, s, pairs=[[14, 17]])  # shin_l with thigh_r: not the hierarchy's pairing


def test_retargeter_maps(mannequin):
    """The retargeter's maps are those found on each skeleton; two mannequins share one frame."""
    small = sk.mannequin(height=1.5)
    rt = sk.Retargeter(mannequin.skeleton, small.skeleton)
    assert rt.humanoid_map('source').joints == sk.HumanoidMap.find(mannequin.skeleton).joints
    assert rt.humanoid_map('target').joints == sk.HumanoidMap.find(small.skeleton).joints
    q = np.array(rt.frame_rotation)
    assert min(np.abs(q - [0, 0, 0, 1]).max(), np.abs(q + [0, 0, 0, 1]).max()) < 1e-6


def test_turn_clip(mannequin):
    """turn_clip: every joint's model matrix is the source's turned by the rotation about +Y written
    here as a matrix (numpy FK), at times on and between the keys; turned back, the source."""
    s = mannequin.skeleton
    walk = mannequin.clip('walk')
    for yaw in (0.8, -2.2, math.pi):
        c, n = math.cos(yaw), math.sin(yaw)
        Y = np.eye(4)
        Y[:3, :3] = [[c, 0, n], [0, 1, 0], [-n, 0, c]]
        turned = sk.turn_clip(walk, s, yaw)
        back = sk.turn_clip(turned, s, -yaw)
        assert turned.name == walk.name and turned.duration == pytest.approx(walk.duration)
        for t in np.linspace(0, walk.duration, 23):
            src = fk_model(s.parents, walk.sample(s, t).local.astype(float))
            got = fk_model(s.parents, turned.sample(s, t).local.astype(float))
            assert np.abs(got - Y @ src).max() < 1e-5
            assert np.abs(back.sample(s, t).local - walk.sample(s, t).local).max() < 1e-5
    with pytest.raises(sk.Error):
        sk.turn_clip(walk, s, float('nan'))
