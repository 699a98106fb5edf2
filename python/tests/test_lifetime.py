"""Zero-copy views and the lifetime of what they view: an array over the library's memory keeps
the object that owns that memory alive, and the memory is freed (the C destroy runs) once the
last view is gone. The library's allocations are counted through an sk_allocator written in
Python (skelanim.memory.Allocator), which also shows that each view points into a block the
library allocated (no copy)."""
import gc
import os
import weakref

import numpy as np
import pytest

import skelanim as sk


def _inside(alloc, arr):
    """True when arr's first byte lies in a block the allocator handed out."""
    a = arr.__array_interface__['data'][0]
    return any(b <= a < b + n for b, n in alloc.blocks.items())


def _churn():
    """Allocates and frees memory of the sizes the library uses, so that a freed block would be
    reused and its contents changed."""
    for _ in range(1):
        m = sk.mannequin()
        m.clip('walk').sample(m.skeleton, 0.3).model()
        del m
        gc.collect()


@pytest.fixture(scope='module')
def ctx(shared):
    m = sk.mannequin()
    return {'mannequin': m, 'analysis': sk.analyze(m.skeleton, m.clip('walk')), 'shared': shared}


def _asset(alloc, ctx=None):
    return sk.mannequin(allocator=alloc)


def _gltf(name):
    def make(alloc, ctx):
        return sk.load_gltf(os.path.join(ctx['shared'], 'assets', 'gltf', name, name + '.glb'), allocator=alloc)
    return make


def _skeleton(alloc, ctx=None):
    return sk.Skeleton.create([-1, 0, 1, 1], names=['root', 'a', 'b', 'c'],
                              rest=[[0, i, 0, 0, 0, 0, 1, 1, 1, 1] for i in range(4)], allocator=alloc)


def _locomotor(alloc, ctx):
    m, an = ctx['mannequin'], ctx['analysis']
    loco = sk.Locomotor(m.skeleton, [an], [m.clip('walk')], allocator=alloc)
    loco.reset()
    for i in range(5):
        loco.update(1 / 30, 1.4 * (i + 1) / 30, 0.0)
    return loco


def _walker(alloc, ctx):
    w = sk.ProceduralWalker(ctx['mannequin'].skeleton, allocator=alloc)
    w.reset()
    for i in range(5):
        w.update(1 / 60, 0.0, 0.02 * (i + 1))
    return w


def _analysis(alloc, ctx):
    m = ctx['mannequin']
    return sk.analyze(m.skeleton, m.clip('walk'), allocator=alloc)


# (name, makes the owning object, takes a view from it). Every array the package hands out as a
# view of the library's memory (docs/python.md, "Arrays without copies").
VIEWS = [
    ('asset.node_to_joint', _asset, lambda a: a.node_to_joint),
    ('asset.joint_to_node', _asset, lambda a: a.joint_to_node),
    ('asset.joint_mesh', _asset, lambda a: a.joint_mesh),
    ('asset.joint_skin', _asset, lambda a: a.joint_skin),
    ('skeleton.parents', _asset, lambda a: a.skeleton.parents),
    ('skeleton.rest', _asset, lambda a: a.skeleton.rest),
    ('skeleton.weight_offset', _asset, lambda a: a.skeleton.weight_offset),
    ('skeleton.weight_count', _asset, lambda a: a.skeleton.weight_count),
    ('skeleton.rest slice', _asset, lambda a: a.skeleton.rest[3:7, 3:7]),
    ('Skeleton.create parents', _skeleton, lambda s: s.parents),
    ('Skeleton.create rest', _skeleton, lambda s: s.rest),
    ('skin.joints', _asset, lambda a: a.skins[0].joints),
    ('skin.inverse_bind', _asset, lambda a: a.skins[0].inverse_bind),
    ('primitive.positions', _asset, lambda a: a.meshes[0].primitives[0].positions),
    ('primitive.normals', _asset, lambda a: a.meshes[0].primitives[0].normals),
    ('primitive.texcoords', _gltf('CesiumMan'), lambda a: a.meshes[0].primitives[0].texcoords),
    ('primitive.target_positions', _gltf('AnimatedMorphCube'), lambda a: a.meshes[0].primitives[0].target_positions[1]),
    ('glTF skin.inverse_bind', _gltf('CesiumMan'), lambda a: a.skins[0].inverse_bind),
    ('primitive.joints', _asset, lambda a: a.meshes[0].primitives[0].joints),
    ('primitive.weights', _asset, lambda a: a.meshes[0].primitives[0].weights),
    ('primitive.indices', _asset, lambda a: a.meshes[0].primitives[0].indices),
    ('sprite primitive.positions', lambda a, ctx: sk.sprite(allocator=a), lambda a: a.meshes[0].primitives[2].positions),
    ('analysis.heel', _analysis, lambda a: a.legs[0].heel),
    ('analysis.footbase', _analysis, lambda a: a.legs[1].footbase),
    ('analysis.heel_height', _analysis, lambda a: a.legs[0].heel_height),
    ('analysis.balance', _analysis, lambda a: a.legs[1].balance),
    ('locomotor.model', _locomotor, lambda lo: lo.model),
    ('procedural walker model', _walker, lambda w: w.model),
]


@pytest.mark.parametrize('name,make,take', VIEWS, ids=[v[0] for v in VIEWS])
def test_view_keeps_its_owner_alive(name, make, take, ctx):
    alloc = sk.Allocator()
    owner = make(alloc, ctx)
    assert alloc.live_blocks > 0
    arr = take(owner)
    assert arr is not None and arr.size > 0, name
    assert not arr.flags['OWNDATA'] and not arr.flags['WRITEABLE']
    assert _inside(alloc, arr), '%s is not a view of the library memory' % name
    ref = arr.copy()
    live, frees = alloc.live_blocks, alloc.frees
    alive = weakref.ref(owner)
    del owner
    gc.collect()
    assert alive() is not None, '%s: the owner died while a view of its memory exists' % name
    assert alloc.frees == frees and alloc.live_blocks == live, '%s: library memory freed under a view' % name
    _churn()
    np.testing.assert_array_equal(arr, ref)
    del arr
    gc.collect()
    assert alive() is None, '%s: the owner outlives its last view' % name
    assert alloc.live_blocks == 0 and alloc.live_bytes == 0, alloc
    assert alloc.frees == alloc.allocs and not alloc.mismatched, (alloc, alloc.mismatched[:3])


def test_every_view_kind_checked():
    assert len(VIEWS) == 28


def test_clips_skins_and_primitives_keep_the_asset():
    """Objects that point into an asset (its clips, skins, primitives, skeleton) keep it alive as
    the arrays do: a clip of a dropped asset still samples the same pose."""
    alloc = sk.Allocator()
    a = sk.mannequin(allocator=alloc)
    walk, skel, skin, prim = a.clip('walk'), a.skeleton, a.skins[0], a.meshes[0].primitives[0]
    want = walk.sample(skel, 0.37).local.copy()
    alive, frees = weakref.ref(a), alloc.frees
    del a
    gc.collect()
    _churn()
    assert alive() is not None and alloc.frees == frees
    np.testing.assert_array_equal(walk.sample(skel, 0.37).local, want)
    assert skin.palette(walk.sample(skel, 0.37).model()).shape == (len(skin.joints), 4, 4)
    assert prim.vertex_count == len(prim.positions)
    del walk, skel, skin
    gc.collect()
    assert alive() is not None  # the primitive still holds it
    del prim
    gc.collect()
    assert alive() is None and alloc.live_blocks == 0 and alloc.frees == alloc.allocs


def test_no_view_no_copy_of_the_owner():
    """Without views, dropping the object frees everything at once (no cycle needs gc)."""
    for make in (_asset, _skeleton):
        alloc = sk.Allocator()
        o = make(alloc)
        assert alloc.live_blocks > 0
        del o
        gc.collect()
        assert alloc.live_blocks == 0 and alloc.frees == alloc.allocs and not alloc.mismatched


@pytest.mark.parametrize('fail_after', [0, 1, 3, 10, 40, 200])
def test_out_of_memory_raises_and_frees(fail_after):
    """An allocation that fails raises OutOfMemory; nothing the library allocated is left."""
    alloc = sk.Allocator(fail_after=fail_after)
    with pytest.raises(sk.OutOfMemory):
        sk.mannequin(allocator=alloc)
    gc.collect()
    assert alloc.allocs == fail_after
    assert alloc.live_blocks == 0 and not alloc.mismatched, alloc


def test_views_equal_the_c_fields(ctx):
    """Each view holds what the C struct's field points to (read here element by element through
    cffi), so no view is another's array."""
    ffi = sk.ffi
    a = sk.load_gltf(os.path.join(ctx['shared'], 'assets', 'gltf', 'CesiumMan', 'CesiumMan.glb'))
    p, s = a._p, a.skeleton
    n = s.joint_count

    def c_array(ptr, count, width=1):
        return np.array([[ptr[i * width + k] for k in range(width)] for i in range(count)]).reshape(
            (count, width) if width > 1 else (count,))

    checks = {
        'parents': (s.parents, c_array(p.skeleton.parents, n)),
        'rest': (s.rest, c_array(ffi.cast('float *', p.skeleton.rest), n, 10)),
        'weight_offset': (s.weight_offset, c_array(p.skeleton.weight_offset, n)),
        'node_to_joint': (a.node_to_joint, c_array(p.node_to_joint, p.node_count)),
        'joint_to_node': (a.joint_to_node, c_array(p.joint_to_node, p.node_count)),
        'joint_mesh': (a.joint_mesh, c_array(p.joint_mesh, p.node_count)),
        'joint_skin': (a.joint_skin, c_array(p.joint_skin, p.node_count)),
        'skin.joints': (a.skins[0].joints, c_array(p.skins[0].joints, p.skins[0].joint_count)),
        'inverse_bind': (a.skins[0].inverse_bind.transpose(0, 2, 1).reshape(-1, 16),
                         c_array(ffi.cast('float *', p.skins[0].inverse_bind), p.skins[0].joint_count, 16)),
    }
    c = p.meshes[0].primitives[0]
    prim = a.meshes[0].primitives[0]
    v, k = c.vertex_count, c.influence_count
    checks.update({
        'positions': (prim.positions, c_array(c.positions, v, 3)),
        'normals': (prim.normals, c_array(c.normals, v, 3)),
        'texcoords': (prim.texcoords, c_array(c.texcoords, v, 2)),
        'joints': (prim.joints, c_array(c.joints, v, k)),
        'weights': (prim.weights, c_array(c.weights, v, k)),
        'indices': (prim.indices, c_array(c.indices, c.index_count)),
    })
    for name, (got, want) in checks.items():
        assert got.shape == want.shape, name
        np.testing.assert_array_equal(got, want, err_msg=name)
    assert len(checks) == 15


def test_everything_allocated_is_freed(ctx):
    """Objects made with an allocator free all of it when dropped; calls that take one for scratch
    memory (humanoid map by topology, contacts) free it before they return."""
    m = ctx['mannequin']
    s, walk = m.skeleton, m.clip('walk')
    makers = {
        'root motion': lambda a: sk.RootMotion(walk, s, 'hips', allocator=a),
        'walker': lambda a: _walker(a, ctx),
        'locomotor': lambda a: _locomotor(a, ctx),
        'analysis': lambda a: _analysis(a, ctx),
        'analysis from JSON': lambda a: sk.MotionAnalysis.from_json(ctx['analysis'].to_json(), allocator=a),
    }
    for name, make in makers.items():
        alloc = sk.Allocator()
        o = make(alloc)
        assert alloc.live_blocks > 0, name
        del o
        gc.collect()
        assert alloc.live_blocks == 0 and alloc.frees == alloc.allocs and not alloc.mismatched, (name, alloc)
    anon = sk.Skeleton.create(s.parents, names=['j%d' % j for j in range(s.joint_count)], rest=s.rest)
    for name, call in (('map by topology', lambda a: sk.HumanoidMap.find(anon, allocator=a)),
                       ('contacts', lambda a: sk.find_contacts(s, walk, allocator=a)),
                       ('restore', lambda a: sk.restore_contacts(s, walk, sk.find_contacts(s, walk), allocator=a))):
        alloc = sk.Allocator()
        result = call(alloc)
        assert result is not None and alloc.allocs > 0, name
        del result
        gc.collect()
        assert alloc.live_blocks == 0 and alloc.frees == alloc.allocs and not alloc.mismatched, (name, alloc)


def test_a_clip_keeps_its_allocator():
    """A clip the library allocated through a Python allocator frees through it even when the
    caller dropped the allocator first (the clip's destructor holds it)."""
    m = sk.mannequin()
    alloc = sk.Allocator()
    clip, _ = sk.restore_contacts(m.skeleton, m.clip('walk'), sk.find_contacts(m.skeleton, m.clip('walk')),
                                  allocator=alloc)
    counts = weakref.ref(alloc)
    del alloc
    gc.collect()
    assert counts() is not None  # held by the clip
    assert clip.sample(m.skeleton, 0.3).local.shape == (m.skeleton.joint_count, 10)
    del clip
    gc.collect()
    assert counts() is None
