"""The locomotor stepping over built-in terrains: the ground height written here from the
terrain's definition; feet that do not sink, planted feet that do not slide, the locomotor's own
matrices equal to forward kinematics of the pose it returns."""
import math

import numpy as np
import pytest

import skelanim as sk

RISE, RUN = 0.15, 0.3


def stairs_height(x, z):
    return 0.0 if z < 1 else (math.floor((z - 1) / RUN) + 1) * RISE


@pytest.fixture(scope='module')
def rig(mannequin):
    s = mannequin.skeleton
    legs = sk.legs_from_mesh(mannequin, sk.find_legs(s))
    clips = [mannequin.clip('walk'), mannequin.clip('run')]
    return s, [sk.analyze(s, c, legs) for c in clips], clips, mannequin.clip('idle')


def test_height_bound():
    # a 2 x 2 m tent: two slopes meeting at a 0.5 m ridge along z = 1
    pos = [(-1, 0, 0), (1, 0, 0), (1, 0.5, 1), (-1, 0.5, 1), (-1, 0, 2), (1, 0, 2)]
    tent = sk.Terrain.mesh(pos, [(0, 1, 2), (0, 2, 3), (3, 2, 5), (3, 5, 4)])
    rng = np.random.default_rng(7)
    for x, z in rng.uniform(-0.99, 0.99, (200, 2)) + (0, 1):
        assert tent.height(x, z) <= tent.height_bound(x, z) < 0.5 + 1e-3
    assert tent.height_bound(5, 1) == -math.inf  # off the mesh
    assert sk.Terrain.flat(0.0).height_bound(0, 0) is None  # analytic: cast a ray


@pytest.mark.parametrize('terrain,height', [
    (lambda: sk.Terrain.flat(0.0), lambda x, z: 0.0),
    (lambda: sk.Terrain.stairs(rise=RISE, run=RUN, start=(0, 0, 1)), stairs_height),
])
def test_walk_over_terrain(rig, terrain, height):
    s, analyses, clips, idle = rig
    ter = terrain()
    for x, z in [(0.3, 0.5), (0, 1.5), (0, 2.05)]:  # the terrain object agrees with the formula
        assert abs(ter.height(x, z) - height(x, z)) < 1e-5
    L = sk.Locomotor(s, analyses, clips, idle=idle, terrain=ter)
    L.reset(0, 0, 0)
    dt, z, v = 1 / 60, 0.0, 0.0
    runs, frames, pen, slide = 0, 0, 0.0, 0.0
    start = [None, None]
    for i in range(300):
        v = min(1.2, v + 1.2 / 0.5 * dt)
        z += v * dt
        pose = L.update(dt, 0, z, 0)
        st = L.state
        if i % 10 == 0:
            np.testing.assert_allclose(L.model, sk.local_to_model(s, pose, st['root']), atol=2e-5 * 4)
        for k, f in enumerate(st['feet']):
            for p in (f['heel'], f['toe']):
                pen = max(pen, height(p[0], p[2]) - p[1])
            if f['stance'] and st['mode'] == 'moving':
                if start[k] is None:
                    start[k] = f['heel'].copy()
                    runs += 1
                slide = max(slide, float(np.hypot(*(f['heel'] - start[k])[[0, 2]])))
            else:
                start[k] = None
        frames += 1
    print('locomotor: %d frames, %d stance runs, slide %.2f cm, penetration %.2f cm' % (frames, runs, 100 * slide,
                                                                                       100 * pen))
    assert frames == 300 and runs >= 4
    assert pen < 0.01 and slide < 0.005
    assert L.state['position'][2] > 3.0 and abs(L.state['position'][1] - height(0, L.state['position'][2])) < 0.1


def test_locomotor_bad_input(rig):
    s, analyses, clips, idle = rig
    L = sk.Locomotor(s, analyses, clips)
    with pytest.raises(sk.InvalidArgument):
        L.reset(float('nan'), 0, 0)
    L.reset(0, 0, 0)
    with pytest.raises(sk.InvalidArgument) as e:
        L.update(-1.0, 0, 0, 0)
    assert str(e.value)
