"""BVH against a reader written here, .skc save / load, and the compressor against its own error
bound, the shell error measured separately and the skelanim tool's compress command."""
import glob
import math
import re
import os
import subprocess

import numpy as np
import pytest

import skelanim as sk
from conftest import ROOT
from fk import quat_matrix


def read_bvh(path):
    """A minimal reader: joints (ROOT, JOINT, End Site) in file order, channels per joint, frames."""
    tokens = open(path).read().split()
    joints, stack, i = [], [], 0
    while tokens[i] != 'MOTION':
        t = tokens[i]
        if t in ('ROOT', 'JOINT'):
            joints.append({'name': tokens[i + 1], 'channels': []})
            i += 2
        elif t == 'End':
            joints.append({'name': 'end', 'channels': []})
            i += 2
        elif t == 'CHANNELS':
            n = int(tokens[i + 1])
            joints[-1]['channels'] = tokens[i + 2:i + 2 + n]
            i += 2 + n
        elif t == 'OFFSET':
            joints[-1]['offset'] = [float(x) for x in tokens[i + 1:i + 4]]
            i += 4
        else:
            i += 1
    frames = int(tokens[i + 2])
    ft = float(tokens[i + 5])
    nch = sum(len(j['channels']) for j in joints)
    data = np.array(tokens[i + 6:i + 6 + frames * nch], float).reshape(frames, nch)
    return joints, frames, ft, data


def _axis(axis, deg):
    a = math.radians(deg) / 2
    v = {'X': (1, 0, 0), 'Y': (0, 1, 0), 'Z': (0, 0, 1)}[axis]
    return quat_matrix((v[0] * math.sin(a), v[1] * math.sin(a), v[2] * math.sin(a), math.cos(a)))


@pytest.mark.parametrize('scale', [1.0, 0.5])
def test_bvh_against_a_reader_written_here(scale):
    path = os.path.join(ROOT, 'tests', 'data', 'bvh', 'base.bvh')
    joints, frames, ft, data = read_bvh(path)
    a = sk.load_bvh(path, scale=scale)
    s = a.skeleton
    assert s.joint_count == len(joints) and len(a.clips) == 1
    assert abs(a.clips[0].duration - (frames - 1) * ft) < 1e-6
    for f in range(frames):
        pose = a.clips[0].sample(s, f * ft, loop='clamp')
        col = 0
        for j, jd in enumerate(joints):
            rot = np.eye(3)
            pos = np.array(jd['offset']) * scale
            for ch in jd['channels']:
                v = data[f, col]
                col += 1
                if ch.endswith('position'):
                    pos['XYZ'.index(ch[0])] = v * scale
                else:
                    rot = rot @ _axis(ch[0], v)
            np.testing.assert_allclose(pose.t[j], pos, atol=1e-5)
            np.testing.assert_allclose(quat_matrix(pose.r[j]), rot, atol=1e-5)


def test_bvh_blank_frames(tmp_path):
    """Frames of zeros (a capture's dropouts) kept, or filled: lerped between the recorded frames
    around them, held at the ends; the recorded frames unchanged."""
    rows = ['0 0 0 0', '1 2 3 10', '0 0 0 0', '0 0 0 0', '4 5 9 40', '0 0 0 0']
    path = tmp_path / 'blank.bvh'
    path.write_text('HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 4 Xposition Yposition Zposition Zrotation\n'
                    ' End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 6\nFrame Time: 0.1\n' + '\n'.join(rows) + '\n')
    keep, fill = sk.load_bvh(path), sk.load_bvh(path, fill_blank=True)
    for f, want_t, want_deg in ((0, (1, 2, 3), 10), (2, (2, 3, 5), 20), (3, (3, 4, 7), 30), (5, (4, 5, 9), 40)):
        p = fill.clips[0].sample(fill.skeleton, f * 0.1, loop='clamp')
        np.testing.assert_allclose(p.t[0], want_t, atol=1e-5)
        np.testing.assert_allclose(abs(p.r[0][2]), math.sin(math.radians(want_deg) / 2), atol=1e-6)
        k = keep.clips[0].sample(keep.skeleton, f * 0.1, loop='clamp')
        np.testing.assert_array_equal(k.t[0], (0, 0, 0))  # kept: the origin
    for f in (1, 4):  # at the keys' own (float32) times
        t = float(np.float32(f * 0.1))
        np.testing.assert_array_equal(fill.clips[0].sample(fill.skeleton, t, loop='clamp').local,
                                      keep.clips[0].sample(keep.skeleton, t, loop='clamp').local)


def test_bvh_errors_name_the_line():
    with pytest.raises(sk.Error) as e:
        sk.load_bvh(os.path.join(ROOT, 'tests', 'data', 'bvh', 'offset_nan.bvh'))
    assert re.search(r'offset_nan\.bvh:8: .*OFFSET', str(e.value)), str(e.value)  # file:line: what


def test_compress_bound_and_shell_error(mannequin):
    s = mannequin.skeleton
    checked = 0
    for clip in mannequin.clips:
        for err_cm in (0.01, 0.5):
            c, st = sk.compress(clip, s, error_cm=err_cm)
            assert c.is_compressed and not clip.is_compressed
            assert st['max_error_cm'] <= err_cm and st['compressed_bytes'] == len(c.compressed_data())
            times = np.linspace(0, clip.duration, 97)
            mx, p99 = sk.shell_error(clip, c, s, 0.03, times)
            assert mx <= err_cm / 100 * 1.0001 and p99 <= mx
            # the shell error measured here: virtual vertices 3 cm along each joint's axes
            ref, got = clip.sample_many(s, times), c.sample_many(s, times)
            worst = 0.0
            for k in range(len(times)):
                ma = sk.local_to_model(s, sk.Pose(s, ref[k].copy(), weights=False)).astype(float)
                mb = sk.local_to_model(s, sk.Pose(s, got[k].copy(), weights=False)).astype(float)
                for axis in range(3):
                    d = ma[:, :3, 3] + 0.03 * ma[:, :3, axis] - (mb[:, :3, 3] + 0.03 * mb[:, :3, axis])
                    worst = max(worst, float(np.linalg.norm(d, axis=1).max()))
            assert worst <= err_cm / 100 * 1.001, (clip.name, worst)
            checked += 1
    assert checked == 2 * len(mannequin.clips) == 14


def test_skc_round_trip(mannequin, tmp_path):
    s = mannequin.skeleton
    comp = [sk.compress(c, s)[0] for c in mannequin.clips]
    path = str(tmp_path / 'm.skc')
    sk.save_skc(path, s, comp + [mannequin.clip('walk')], metres_per_unit=0.01)
    b = sk.load_skc(path)
    assert b.metres_per_unit == 0.01 and [c.name for c in b.clips] == [c.name for c in comp] + ['walk']
    assert b.skeleton.names == s.names
    np.testing.assert_array_equal(b.skeleton.parents, s.parents)
    times = np.linspace(0, 3, 31)
    for c, d in zip(comp, b.clips):  # compressed: the same blob, the same bits
        np.testing.assert_array_equal(c.sample_many(s, times), d.sample_many(b.skeleton, times))
    # keys: float32 keys, possibly stored frame-major on load (lerp in float: rounding only)
    np.testing.assert_allclose(mannequin.clip('walk').sample_many(s, times), b.clips[-1].sample_many(b.skeleton, times),
                               rtol=0, atol=4e-7)
    again = sk.Clip.from_compressed(comp[1].compressed_data(), name='x')
    np.testing.assert_array_equal(again.sample_many(s, times), comp[1].sample_many(s, times))
    r = sk.resample(mannequin.clip('walk'), s, 60.0)
    assert r.tracks[0].key_count == round(mannequin.clip('walk').duration * 60) + 1
    with pytest.raises(sk.LimitExceeded):
        sk.resample(mannequin.clip('walk'), s, 60.0, max_work=10)
    data = bytearray(open(path, 'rb').read())
    data[100] ^= 0xff
    open(path, 'wb').write(bytes(data))
    with pytest.raises(sk.Error) as e:
        sk.load_skc(path)
    assert 'm.skc' in str(e.value)


def test_compress_matches_the_tool(shared, cli, tmp_path):
    """skelanim compress (C) and sk.compress (Python) give the same blob for the same options."""
    files = sorted(glob.glob(os.path.join(shared, 'mocap', 'bvh', '*.bvh')))[:2]
    assert len(files) == 2
    subprocess.run([cli, 'compress', *files, '-o', str(tmp_path), '--scale', '0.056444', '--error-cm', '0.1'],
                   check=True, capture_output=True)
    for f in files:
        a = sk.load_bvh(f)  # the tool keeps the file's units and tells the compressor its scale
        mine, _ = sk.compress(a.clips[0], a.skeleton, error_cm=0.1, metres_per_unit=0.056444)
        theirs = sk.load_skc(os.path.join(tmp_path, os.path.basename(f)[:-4] + '.skc'))
        assert theirs.clips[0].compressed_data() == mine.compressed_data()


def test_key_rate_is_the_files_frame_time(shared):
    """key_rate of a BVH clip is 1 / its 'Frame Time:' line, read here from the file's text; a clip
    with keys at irregular times has none (0)."""
    files = sorted(glob.glob(os.path.join(shared, 'mocap', 'bvh', '*.bvh')))[:3]
    assert len(files) == 3
    for f in files:
        ft = next(float(l.split(':')[1]) for l in open(f) if l.strip().startswith('Frame Time:'))
        rate = sk.key_rate(sk.load_bvh(f).clips[0])
        assert abs(rate - 1.0 / ft) < 1e-3 * rate, (f, rate, 1.0 / ft)
    times = np.array([0.0, 0.1, 0.35, 0.4], np.float32)
    values = np.tile(np.array([0, 0, 0, 1], np.float32), (4, 1))
    clip = sk.clip_from_tracks('irregular', [{'joint': 0, 'path': 'rotation', 'times': times, 'values': values}])
    assert sk.key_rate(clip) == 0.0
