"""The N-legged walker from Python: creatures walking up stairs with their planted feet still and
on the terrain's own height, the feet down never fewer than the gait's minimum counted here by
sampling, the matrices the pose's forward kinematics under the state's root, and refusals."""
import math

import numpy as np
import pytest

import skelanim as sk
from skelanim.legged import creature_kind, gait, min_planted
from skelanim.procedural import straight_path


def sampled_min(phases, duty, n=20000):
    best = len(phases)
    for k in range(n):
        phi = (k + 0.5) / n
        best = min(best, sum(((phi - p) % 1.0) >= 1.0 - duty for p in phases))
    return best


@pytest.mark.parametrize('kind,name,legs', [('tripod', 'wave', 3), ('quadruped', 'alternate', 4),
                                            ('hexapod', 'alternate', 6)])
def test_creature_climbs_stairs(kind, name, legs):
    a = sk.creature(kind)
    s = a.skeleton
    stairs = sk.Terrain.stairs(rise=0.15, run=0.3, start=(0, 0, 1.0), direction=(0, 0, 1), count=6)
    w = sk.LeggedWalker(s, gait=name, terrain=stairs)
    assert w.leg_count == legs
    gmin = sampled_min(w.phases, w.duty)
    assert gmin == (legs - 1 if name == 'wave' else legs // 2)
    w.reset(0.0, 0.0, 0.0)
    assert w.model is None
    prev, pinned, frames = None, 0, 0
    for x, z, yaw in straight_path(0.8, 6.0):
        w.update(1 / 60, x, z, yaw)
        st = w.state
        frames += 1
        if st['walking']:
            assert st['planted'] >= gmin
        assert st['min_planted'] == gmin
        for k, f in enumerate(st['feet']):
            if f['planted']:
                c = f['contact']
                assert abs(c[1] - stairs.height(c[0], c[2])) < 0.01
                if prev is not None and prev['feet'][k]['planted']:
                    np.testing.assert_allclose(c, prev['feet'][k]['contact'], atol=1e-4)
                    pinned += 1
        prev = st
    assert frames == 360 and pinned > 500
    # the matrices are the pose's forward kinematics under the root
    fk = sk.local_to_model(s, w.pose, root=st['root'])
    np.testing.assert_allclose(fk, w.model, atol=1e-4)
    assert st['body_height'] > stairs.height(0, 4.8) + st['rest_height'] / 3


def test_gaits_and_refusals():
    for n in range(2, 9):
        ph, duty = gait('wave', n)
        assert min_planted(ph, duty) == sampled_min(ph, duty, 4000) == n - 1
    with pytest.raises(sk.InvalidArgument):
        gait('alternate', 3)
    with pytest.raises(ValueError):
        sk.creature('octopus')
    a = sk.creature('quadruped')
    with pytest.raises(ValueError):
        sk.LeggedWalker(a.skeleton, legs=[('hip_0', 'knee_0', 'foot_0', 0.03)], phases=[0.0], duty=0.8)
    with pytest.raises(sk.InvalidArgument):  # the knee of another leg: not a chain
        sk.LeggedWalker(a.skeleton, legs=[('hip_0', 'knee_1', 'foot_0', 0.03), ('hip_1', 'knee_1', 'foot_1', 0.03)])
    assert creature_kind(a.skeleton) == 'quadruped' and creature_kind(sk.sprite().skeleton) is None
    with pytest.raises(ValueError):
        sk.LeggedWalker(sk.mannequin().skeleton)
    w = sk.LeggedWalker(a.skeleton)
    w.reset()
    with pytest.raises(ValueError):
        w.update(1 / 60, math.nan, 0.0)
    with pytest.raises(sk.InvalidArgument):
        w.update(2.0, 0.0, 0.0)
    # the legs given by hand: the same walker
    legs = [('hip_%d' % i, 'knee_%d' % i, 'foot_%d' % i, 0.03) for i in range(4)]
    w2 = sk.LeggedWalker(a.skeleton, legs=legs, body_joint='body', gait='wave')
    w.reset(), w2.reset()
    for x, z, yaw in straight_path(0.6, 1.0):
        np.testing.assert_allclose(w.update(1 / 60, x, z, yaw).local, w2.update(1 / 60, x, z, yaw).local)
