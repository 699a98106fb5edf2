"""Sampling, forward kinematics, palettes, blending, skinning and errors, against an independent
numpy implementation and the skelanim tool's own sampling (skelanim sample --json)."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import skelanim as sk
from fk import model as fk_model
from fk import quat_matrix


def test_views_share_memory(mannequin):
    s = mannequin.skeleton
    assert s.joint_count == 22 and len(s.names) == 22
    assert not s.parents.flags['OWNDATA'] and not s.rest.flags['WRITEABLE']
    assert all(s.parents[j] < j for j in range(s.joint_count))
    assert s.find('foot_l') == s.names.index('foot_l') and s.find('nope') == -1
    prim = mannequin.meshes[0].primitives[0]
    assert prim.positions.shape == (prim.vertex_count, 3) and not prim.positions.flags['OWNDATA']


def test_sample_matches_cli(mannequin, cli):
    """Local transforms and world matrices from Python equal the tool's (the same C library) to
    the printed precision, for 3 clips x 4 times."""
    s = mannequin.skeleton
    checked = 0
    for name in ('walk', 'run', 'idle'):
        for t in (0.0, 0.3, 0.77, 2.5):
            out = subprocess.run([cli, 'sample', '@mannequin', '--time', repr(t), '--clip', name, '--json'],
                                 check=True, capture_output=True, text=True).stdout
            ref = json.loads(out)
            pose = mannequin.clip(name).sample(s, t)
            model = pose.model()
            assert abs(ref['clip_time'] - mannequin.clip(name).wrap_time(t)) < 1e-7
            for node in ref['nodes']:
                j = node['index']
                loc = node['local']
                np.testing.assert_allclose(pose.local[j], loc['t'] + loc['r'] + loc['s'], rtol=0, atol=1e-7)
                np.testing.assert_allclose(model[j], np.array(node['world']).reshape(4, 4).T, rtol=0, atol=1e-6)
                checked += 1
    assert checked == 3 * 4 * 22


def test_local_to_model_and_palette_against_numpy(mannequin):
    s = mannequin.skeleton
    root = np.eye(4, dtype=np.float32)
    root[:3, :3] = quat_matrix((0, math.sin(0.35), 0, math.cos(0.35)))
    root[:3, 3] = (1.0, 0.2, -3.0)
    for t in np.linspace(0, 1.0, 7):
        pose = mannequin.clip('walk').sample(s, t)
        ref = fk_model(s.parents, pose.local.astype(float), root.astype(float))
        got = sk.local_to_model(s, pose, root)
        np.testing.assert_allclose(got, ref, atol=2e-5)
        skin = mannequin.skins[0]
        pal = skin.palette(got)
        np.testing.assert_allclose(pal, ref[skin.joints] @ skin.inverse_bind.astype(float), atol=2e-5)


def test_sample_many_equals_sample(mannequin):
    s, clip = mannequin.skeleton, mannequin.clip('run')
    times = np.linspace(-0.5, 2.0, 11)
    many = clip.sample_many(s, times)
    for i, t in enumerate(times):
        np.testing.assert_array_equal(many[i], clip.sample(s, t).local)


def test_sample_at_keys_returns_keys(mannequin):
    """At a key time a LINEAR track gives its key (the clip's own keys, read back)."""
    s, clip = mannequin.skeleton, mannequin.clip('walk')
    n = 0
    for i, tr in enumerate(clip.tracks):
        times, values = clip.track_keys(i)
        assert tr.interpolation == 'linear' and len(times) == tr.key_count
        off = {'translation': 0, 'rotation': 3, 'scale': 7}[tr.path]
        for k in (0, len(times) // 2):
            pose = clip.sample(s, float(times[k]), loop='clamp')
            got = pose.local[tr.joint, off:off + tr.width]
            want = values[k] / (np.linalg.norm(values[k]) if tr.path == 'rotation' else 1)
            if tr.path == 'rotation' and np.dot(got, want) < 0:
                want = -want
            np.testing.assert_allclose(got, want, atol=2e-6)
            n += 1
    assert n == 2 * clip.track_count and n > 10


def test_blend_two_closed_form(mannequin):
    """Two poses, weight t: translations lerp, rotations the sign-corrected nlerp (the library's
    default), written here from the formula."""
    s = mannequin.skeleton
    a, b = mannequin.clip('walk').sample(s, 0.2), mannequin.clip('run').sample(s, 0.5)
    for t in (0.0, 0.25, 0.5, 0.9):
        out = sk.blend(s, [a, b], [1 - t, t])
        np.testing.assert_allclose(out.t, (1 - t) * a.t + t * b.t, atol=1e-6)
        sign = np.where(np.sum(a.r * b.r, axis=1) < 0, -1.0, 1.0)[:, None]
        q = (1 - t) * a.r + t * sign * b.r
        q /= np.linalg.norm(q, axis=1)[:, None]
        np.testing.assert_allclose(out.r, q, atol=1e-6)
        two = sk.blend_two(s, a, b, t)
        np.testing.assert_allclose(two.local, out.local, atol=1e-6)


def test_skinning_against_numpy(mannequin):
    s = mannequin.skeleton
    prim, skin = mannequin.meshes[0].primitives[0], mannequin.skins[0]
    pal = skin.palette(mannequin.clip('walk').sample(s, 0.4).model()).astype(float)
    mesh = sk.SkinnedMesh(prim)
    got = mesh.skin(pal)
    w = prim.weights.astype(float)
    w /= w.sum(axis=1, keepdims=True)
    p = np.c_[prim.positions, np.ones(prim.vertex_count)]
    ref = np.einsum('vk,vkij,vj->vi', w, pal[prim.joints.astype(int)], p)[:, :3]
    np.testing.assert_allclose(got, ref, atol=1e-5)
    dq = mesh.skin(pal, method='dqs')
    assert np.abs(dq - ref).max() < 0.02  # rigid joints: DQS near LBS


def test_sprite_cut_out():
    """The 2D sprite: the planar rig's joints and a mesh facing +X whose pieces stay in their plane
    when the joints turn about X (skinned by the library, checked with numpy)."""
    a = sk.sprite()
    s = a.skeleton
    assert s.joint_count == 21 and s.names[-1] == 'sprite_mesh' and s.find('thigh_l') >= 0
    prims = a.meshes[0].primitives
    assert len(prims) >= 4 and sum(p.vertex_count for p in prims) > 300
    pose = sk.Pose(s)
    rng = np.random.default_rng(7)
    for j in range(20):
        h = rng.uniform(-0.5, 0.5)
        pose.local[j, 3:7] = [math.sin(h), 0, 0, math.cos(h)]  # turns about X
    pal = a.skins[0].palette(pose.model()).astype(float)
    for p in prims:
        assert np.all(p.normals == [1, 0, 0])
        got = sk.SkinnedMesh(p).skin(pal)
        w = p.weights.astype(float)
        ref = np.einsum('vk,vkij,vj->vi', w, pal[p.joints.astype(int)], np.c_[p.positions, np.ones(p.vertex_count)])
        np.testing.assert_allclose(got, ref[:, :3], atol=1e-5)
        np.testing.assert_allclose(got[:, 0], p.positions[:, 0], atol=1e-6)


def test_errors_carry_the_message(tmp_path):
    with pytest.raises(sk.IOFailure) as e:
        sk.load_gltf(str(tmp_path / 'missing.glb'))
    assert 'missing.glb' in str(e.value) and e.value.code_name == 'SK_ERR_IO'
    bad = tmp_path / 'bad.gltf'
    bad.write_text('{"asset": {"version": "2.0"}, "nodes": [{"children": [5]}]}')
    with pytest.raises(sk.Error) as e:
        sk.load(str(bad))
    assert '/nodes/0/children' in str(e.value), str(e.value)
    s = sk.mannequin().skeleton
    with pytest.raises(sk.InvalidArgument):
        sk.ik.solve(s, s.rest_pose(), [13, 14, 15], (float('nan'), 0, 0), solver='twobone')
    with pytest.raises(sk.InvalidArgument):
        sk.Skeleton.create([1, -1])  # parent after child


def test_skeleton_and_clip_built_in_python():
    s = sk.Skeleton.create([-1, 0, 1], names=['a', 'b', 'c'],
                           rest=[[0, 0, 0, 0, 0, 0, 1, 1, 1, 1], [0, 1, 0, 0, 0, 0, 1, 1, 1, 1],
                                 [0, 1, 0, 0, 0, 0, 1, 1, 1, 1]])
    clip = sk.clip_from_tracks('bend', [{'joint': 1, 'path': 'rotation', 'times': [0, 1],
                                         'values': [[0, 0, 0, 1], [0, 0, math.sin(math.pi / 4), math.cos(math.pi / 4)]]}])
    assert clip.duration == 1.0 and clip.track_count == 1
    m = clip.sample(s, 1.0, loop='clamp').model()
    np.testing.assert_allclose(m[2][:3, 3], [-1, 1, 0], atol=1e-6)  # tip swung 90 degrees about +Z
    m = clip.sample(s, 0.5).model()
    np.testing.assert_allclose(m[2][:3, 3], [-math.sin(math.pi / 4), 1 + math.cos(math.pi / 4), 0], atol=1e-6)
