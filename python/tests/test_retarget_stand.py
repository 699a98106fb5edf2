"""Retargeting from a skeleton whose rest pose does not stand (HumanoidMap.stands, .pose_like,
standing_rest, Retargeter(source_rest=..., source_map=...)): tests/data/retarget/02_02_orients.bvh
is CMU 02_02 with its joint orients baked in (every bone along +X at rest, the same motion)."""
import os

import numpy as np
import pytest

import skelanim as sk
from conftest import ROOT

CMU = 0.056444


@pytest.fixture(scope='module')
def assets():
    orients = sk.load_bvh(os.path.join(ROOT, 'tests', 'data', 'retarget', '02_02_orients.bvh'), scale=CMU)
    capture = sk.load_bvh(os.path.join(ROOT, 'tests', 'data', 'cmu', '02_02.bvh'), scale=CMU)
    return orients, capture, sk.mannequin()


def test_stands(assets):
    orients, capture, mq = assets
    assert sk.HumanoidMap.find(capture.skeleton).stands()
    assert sk.HumanoidMap.find(mq.skeleton).stands()
    assert not sk.HumanoidMap.find(orients.skeleton).stands()
    frame = orients.clips[0].sample(orients.skeleton, 1.0)
    assert sk.HumanoidMap.find(orients.skeleton, rest=frame).stands(frame)


def test_standing_rest_retargets_as_the_capture(assets):
    orients, capture, mq = assets
    os_, oc, cs, cc = orients.skeleton, orients.clips[0], capture.skeleton, capture.clips[0]
    mqmap = sk.HumanoidMap.find(mq.skeleton)
    assert sk.standing_rest(cs, cc, mq.skeleton) is None  # its rest stands
    rest, smap = sk.standing_rest(os_, oc, mq.skeleton)
    assert rest.local.shape == (os_.joint_count, 10) and np.isfinite(rest.local).all()
    # what standing_rest does, spelled out: the map on the first frame, the standing frames posed like the target
    first = oc.sample(os_, 0.0, loop='clamp')
    assert smap.joints == sk.HumanoidMap.find(os_, rest=first).joints
    frames = [oc.sample(os_, oc.duration * k / 32, loop='clamp') for k in range(32)]
    again = smap.pose_like([p for p in frames if smap.stands(p)], mqmap)
    assert np.array_equal(again.local, rest.local)
    # the copy and the capture, each given a rest made from the same frames (the copy's key times,
    # where both hold the same pose), retarget every frame to the same target pose
    times = [k / 30.0 for k in range(0, 71, 5)]
    cmap = sk.HumanoidMap.find(cs, rest=cc.sample(cs, 0.0))
    omap = sk.HumanoidMap.find(os_, rest=oc.sample(os_, 0.0))
    orest = omap.pose_like([oc.sample(os_, t) for t in times], mqmap)
    crest = cmap.pose_like([cc.sample(cs, t) for t in times], mqmap)
    a = sk.Retargeter(os_, mq.skeleton, source_rest=orest, source_map=omap)
    b = sk.Retargeter(cs, mq.skeleton, source_rest=crest, source_map=cmap)
    for t in times:
        pa, pb = a.pose(oc.sample(os_, t)), b.pose(cc.sample(cs, t))
        dots = np.abs(np.sum(pa.local[:, 3:7].astype(np.float64) * pb.local[:, 3:7], axis=1))
        assert (np.degrees(2 * np.arccos(np.minimum(dots, 1.0))) < 0.1).all(), dots.min()  # float32 keys
        assert np.allclose(pa.local[:, 0:3], pb.local[:, 0:3], atol=1e-4)
    assert len(times) == 15


def test_pose_like_errors(assets):
    orients, _, mq = assets
    smap = sk.HumanoidMap.find(orients.skeleton)
    with pytest.raises(sk.InvalidArgument):
        smap.pose_like([], sk.HumanoidMap.find(mq.skeleton))
