"""Skeletons, poses, clips, assets and their loaders, forward kinematics, skinning palettes, blending.

Arrays returned here are numpy views of the library's memory where the layout allows (a skeleton's
parents and rest pose, a clip's sampled pose, a primitive's vertices, model matrices), kept alive by
the object they come from. A pose's transforms are one (joints, 10) float32 array: translation
x, y, z, rotation x, y, z, w, scale x, y, z (the layout of sk_transform). Matrices are (n, 4, 4)
with m[i, row, col]; the library stores them column-major, so they are transposed views.
"""
import os

import numpy as np

from ._lib import C, call, cstr, ffi, mat4_cm, mat4_rows, ptr, pystr, view, view_property, cached_view
from .memory import c_of, owned

LOOP_MODES = {'repeat': 0, 'clamp': 1, 'ping_pong': 2}
PATHS = ('translation', 'rotation', 'scale', 'weights')
INTERPOLATIONS = ('linear', 'step', 'cubicspline')


def _loop(loop):
    if isinstance(loop, int):
        return loop
    try:
        return LOOP_MODES[loop]
    except KeyError:
        raise ValueError('loop must be one of %s' % ', '.join(LOOP_MODES)) from None


class Skeleton:
    """A skeleton (read-only): joint_count, names, parents, rest (joints x 10), weight_total."""

    def __init__(self, p, owner):
        self._p = p
        self._owner = owner
        n = p.joint_count
        self.joint_count = int(n)
        self.weight_total = int(p.weight_total)
        self.names = [pystr(p.names[i]) for i in range(n)]

    # Views of the skeleton's memory (made on access: see _lib.cached_view).
    parents = view_property(lambda self: view(self, self._p.parents, (self.joint_count,), np.int32))
    rest = view_property(lambda self: view(self, self._p.rest, (self.joint_count, 10), np.float32))
    rest_weights = view_property(lambda self: view(self, self._p.rest_weights, (self.weight_total,), np.float32))
    weight_offset = view_property(lambda self: view(self, self._p.weight_offset, (self.joint_count,), np.uint32))
    weight_count = view_property(lambda self: view(self, self._p.weight_count, (self.joint_count,), np.uint32))

    @classmethod
    def create(cls, parents, names=None, rest=None, allocator=None):
        """A skeleton from arrays: parents (parent before child, -1 = root), names, rest (n, 10);
        allocator: None (the C library) or a skelanim.memory.Allocator."""
        par = np.ascontiguousarray(parents, dtype=np.int32)
        n = len(par)
        d = ffi.new('sk_skeleton_desc *')
        d.joint_count = n
        d.parents = ptr(par, 'int32_t *')
        keep = [par]
        if names is not None:
            cn = [ffi.new('char[]', cstr(s)) for s in names]
            arr = ffi.new('char *[]', cn)
            keep += [cn, arr]
            d.names = arr
        if rest is not None:
            r = np.ascontiguousarray(rest, dtype=np.float32)
            if r.shape != (n, 10):
                raise ValueError('Skeleton.create: rest must be (%d, 10), got %s' % (n, r.shape))
            keep.append(r)
            d.rest = ptr(r, 'sk_transform *')
        out = ffi.new('sk_skeleton **')
        call(C.sk_skeleton_create, d, c_of(allocator), out)
        return cls(owned(out[0], C.sk_skeleton_destroy, allocator), None)

    def find(self, name):
        """Index of the first joint with this name, or -1."""
        return int(C.sk_skeleton_find(self._p, cstr(name)))

    def index(self, joint):
        """A joint index from an index or a name (KeyError when no joint has that name)."""
        if isinstance(joint, str):
            j = self.find(joint)
            if j < 0:
                raise KeyError('no joint named %r' % joint)
            return j
        return int(joint)

    def subtree_end(self, joint):
        return int(C.sk_skeleton_subtree_end(self._p, joint))

    def rest_pose(self):
        p = Pose(self)
        return p

    def __repr__(self):
        return '<Skeleton %d joints>' % self.joint_count


class Pose:
    """Local transforms (joints x 10 float32: t xyz, r xyzw, s xyz) and morph weights of one skeleton,
    in numpy memory the library writes into directly. Starts at the skeleton's rest pose."""

    def __init__(self, skeleton, local=None, weights=True):
        self.skeleton = skeleton
        n = skeleton.joint_count
        if local is None:
            self.local = np.array(skeleton.rest, dtype=np.float32, copy=True).reshape(n, 10)
        else:
            self.local = local
            if local.dtype != np.float32 or local.shape != (n, 10) or not local.flags['C_CONTIGUOUS'] \
                    or not local.flags['WRITEABLE']:
                raise ValueError('pose: local must be a writable C-contiguous (%d, 10) float32 array' % n)
        if weights and skeleton.weight_total:
            self.weights = np.array(skeleton.rest_weights, dtype=np.float32, copy=True)
        else:
            self.weights = None
        self._c = ffi.new('sk_pose *')
        self._c.local = ffi.cast('sk_transform *', ffi.from_buffer(self.local))
        self._c.joint_count = n
        if self.weights is not None:
            self._c.weights = ffi.cast('float *', ffi.from_buffer(self.weights))
            self._c.weight_count = skeleton.weight_total

    @property
    def c(self):
        return self._c

    @property
    def t(self):
        return self.local[:, 0:3]

    @property
    def r(self):
        return self.local[:, 3:7]

    @property
    def s(self):
        return self.local[:, 7:10]

    def copy(self):
        p = Pose(self.skeleton, weights=self.weights is not None)
        p.local[...] = self.local
        if self.weights is not None:
            p.weights[...] = self.weights
        return p

    def model(self, root=None):
        """Model matrices of this pose: local_to_model(skeleton, self, root)."""
        return local_to_model(self.skeleton, self, root)


class TrackInfo:
    __slots__ = ('joint', 'path', 'interpolation', 'key_count', 'width', 'time_min', 'time_max')

    def __init__(self, i):
        self.joint = int(i.joint)
        self.path = PATHS[i.path]
        self.interpolation = INTERPOLATIONS[i.interpolation]
        self.key_count = int(i.key_count)
        self.width = int(i.width)
        self.time_min = float(i.time_min)
        self.time_max = float(i.time_max)

    def __repr__(self):
        return '<Track joint %d %s %s %d keys>' % (self.joint, self.path, self.interpolation, self.key_count)


class Clip:
    """An animation clip (read-only once built; shared by any number of poses)."""

    def __init__(self, p, owner=None, allocator=None):
        self._owner = owner  # the asset that owns it, or None: this object destroys it
        self._p = p if owner is not None else owned(p, C.sk_clip_destroy, allocator)

    name = property(lambda self: pystr(C.sk_clip_name(self._p)))
    duration = property(lambda self: float(C.sk_clip_duration(self._p)))
    track_count = property(lambda self: int(C.sk_clip_track_count(self._p)))
    joint_span = property(lambda self: int(C.sk_clip_joint_span(self._p)))
    is_compressed = property(lambda self: bool(C.sk_clip_is_compressed(self._p)))
    is_frame_major = property(lambda self: bool(C.sk_clip_is_frame_major(self._p)))
    memory_size = property(lambda self: int(C.sk_clip_memory_size(self._p)))

    @property
    def tracks(self):
        info = ffi.new('sk_track_info *')
        out = []
        for i in range(self.track_count):
            C.sk_clip_track_info(self._p, i, info)
            out.append(TrackInfo(info))
        return out

    def track_keys(self, i):
        """(times, values): copies of track i's keys; values (keys, width), or (keys, 3, width) for
        CUBICSPLINE (in-tangent, value, out-tangent)."""
        info = ffi.new('sk_track_info *')
        if not C.sk_clip_track_info(self._p, i, info):
            raise IndexError('track %d of %d' % (i, self.track_count))
        k, w = info.key_count, info.width
        cubic = info.interpolation == 2
        times = np.empty(k, np.float32)
        values = np.empty((k, 3, w) if cubic else (k, w), np.float32)
        C.sk_clip_track_keys(self._p, i, ptr(times, 'float *'), ffi.cast('float *', ffi.from_buffer(values)))
        return times, values

    def wrap_time(self, t, loop='repeat'):
        return float(C.sk_clip_wrap_time(self._p, t, _loop(loop)))

    def sample(self, skeleton, t, loop='repeat', out=None):
        """The pose at time t (s): a new Pose, or written into out."""
        pose = out if out is not None else Pose(skeleton)
        call(C.sk_clip_sample, self._p, skeleton._p, float(t), _loop(loop), pose.c)
        return pose

    def sample_many(self, skeleton, times, loop='repeat'):
        """Local transforms at each time: (len(times), joints, 10) float32, sampled in place."""
        times = np.asarray(times, dtype=np.float64).ravel()
        out = np.empty((len(times), skeleton.joint_count, 10), np.float32)
        cp = ffi.new('sk_pose *')
        cp.joint_count = skeleton.joint_count
        base = ffi.cast('sk_transform *', ffi.from_buffer(out))
        lm = _loop(loop)
        for i, t in enumerate(times):
            cp.local = base + i * skeleton.joint_count
            call(C.sk_clip_sample, self._p, skeleton._p, float(t), lm, cp)
        return out

    def compressed_data(self):
        """The compressed blob (bytes) of a compressed clip, else None."""
        d, s = ffi.new('void **'), ffi.new('size_t *')
        if not C.sk_clip_compressed_data(self._p, d, s):
            return None
        return bytes(ffi.buffer(d[0], s[0]))

    @classmethod
    def from_compressed(cls, data, name=''):
        """A clip from a compressed blob (compressed_data()); the blob is copied and checked."""
        b = bytes(data)
        out = ffi.new('sk_clip **')
        call(C.sk_clip_from_compressed, cstr(name), b, len(b), True, ffi.NULL, out)
        return cls(out[0])

    def channel_mask(self, skeleton):
        out = np.zeros(skeleton.joint_count, np.uint8)
        call(C.sk_clip_channel_mask, self._p, skeleton._p, ptr(out, 'uint8_t *'))
        return out

    def __repr__(self):
        return '<Clip %r %.3f s, %d tracks%s>' % (self.name, self.duration, self.track_count,
                                                   ', compressed' if self.is_compressed else '')


def clip_from_tracks(name, tracks, duration=None):
    """Builds a clip: tracks is a list of dicts {joint, path, times, values, interpolation='linear'}."""
    b = ffi.new('sk_clip_builder **')
    call(C.sk_clip_builder_create, cstr(name), ffi.NULL, b)
    try:
        for tr in tracks:
            d = ffi.new('sk_track_desc *')
            times = np.ascontiguousarray(tr['times'], np.float32)
            values = np.ascontiguousarray(tr['values'], np.float32)
            d.joint = tr['joint']
            d.path = PATHS.index(tr['path'])
            d.interpolation = INTERPOLATIONS.index(tr.get('interpolation', 'linear'))
            d.key_count = len(times)
            d.times = ptr(times, 'float *')
            d.values = ptr(values, 'float *')
            d.width = tr.get('width', 0)
            call(C.sk_clip_builder_add_track, b[0], d)  # copies
        if duration is not None:
            C.sk_clip_builder_set_duration(b[0], float(duration))
    except Exception:
        C.sk_clip_builder_destroy(b[0])
        raise
    out = ffi.new('sk_clip **')
    call(C.sk_clip_builder_finish, b[0], out)
    return Clip(out[0])


class Skin:
    """A glTF skin: joints (skeleton indices), inverse_bind (k, 4, 4)."""

    def __init__(self, c, owner):
        self._c = c
        self._owner = owner
        self.name = pystr(c.name)
        self.skeleton_root = int(c.skeleton_root)

    joints = view_property(lambda self: view(self._owner, self._c.joints, (self._c.joint_count,), np.uint32))
    inverse_bind = view_property(lambda self: mat4_rows(view(
        self._owner, ffi.cast('float *', self._c.inverse_bind), (self._c.joint_count, 16), np.float32)))

    def palette(self, model):
        return skin_palette(self, model)


class Primitive:
    """A mesh primitive's arrays (views): positions (v, 3), normals, texcoords, joints (v, k) uint16,
    weights (v, k), indices."""

    def __init__(self, c, owner):
        self._c = c
        self._owner = owner
        v, k = c.vertex_count, c.influence_count
        self.vertex_count = int(v)
        self.influence_count = int(k)
        self.material = int(c.material)
        self.missing_data = None if c.missing_data == ffi.NULL else pystr(c.missing_data)

    def _view(self, p, cols, dtype=np.float32):
        return None if p == ffi.NULL else view(self._owner, p, (self.vertex_count, cols), dtype)

    positions = view_property(lambda self: self._view(self._c.positions, 3))
    normals = view_property(lambda self: self._view(self._c.normals, 3))
    texcoords = view_property(lambda self: self._view(self._c.texcoords, 2))
    joints = view_property(lambda self: self._view(self._c.joints, self.influence_count, np.uint16))
    weights = view_property(lambda self: self._view(self._c.weights, self.influence_count))
    indices = view_property(lambda self: None if self._c.indices == ffi.NULL else view(
        self._owner, self._c.indices, (self._c.index_count,), np.uint32))

    @property
    def target_positions(self):
        """Per morph target, its position offsets (v, 3): views (zeros where a target has none)."""
        def one(i):
            t = self._c.targets[i].positions
            return np.zeros((self.vertex_count, 3), np.float32) if t == ffi.NULL else self._view(t, 3)
        return [cached_view(self, 'target%d' % i, lambda i=i: one(i)) for i in range(self._c.target_count)]


class Mesh:
    def __init__(self, c, owner):
        self.name = pystr(c.name)
        self.primitives = [Primitive(c.primitives[i], owner) for i in range(c.primitive_count)]
        self.weight_count = int(c.weight_count)


class Asset:
    """What a reader produces: skeleton, clips, skins, meshes; node_to_joint / joint_to_node (glTF
    node indices), joint_mesh / joint_skin. Memory is the asset's; views keep it alive."""

    def __init__(self, p, metres_per_unit=None, path=None, allocator=None):
        self._p = owned(p, C.sk_asset_destroy, allocator)
        self.path = path
        self.metres_per_unit = metres_per_unit
        self.skeleton = Skeleton(p.skeleton, self)
        self.clips = [Clip(p.clips[i], self) for i in range(p.clip_count)]
        self.skins = [Skin(p.skins[i], self) for i in range(p.skin_count)]
        self.meshes = [Mesh(p.meshes[i], self) for i in range(p.mesh_count)]
        self.generator = pystr(p.generator)

    node_to_joint = view_property(lambda self: view(self, self._p.node_to_joint, (self._p.node_count,), np.uint32))
    joint_to_node = view_property(lambda self: view(self, self._p.joint_to_node, (self._p.node_count,), np.uint32))
    joint_mesh = view_property(lambda self: view(self, self._p.joint_mesh, (self._p.node_count,), np.int32))
    joint_skin = view_property(lambda self: view(self, self._p.joint_skin, (self._p.node_count,), np.int32))

    def clip(self, name):
        """The clip with this name (KeyError when there is none)."""
        i = C.sk_asset_find_clip(self._p, cstr(name))
        if i < 0:
            raise KeyError('no clip named %r (clips: %s)' % (name, ', '.join(c.name for c in self.clips)))
        return self.clips[i]

    def validate(self):
        call(C.sk_asset_validate, self._p)

    def write_glb(self, path):
        call(C.sk_glb_write_file, self._p, cstr(os.fspath(path)), ffi.NULL)

    def save_skc(self, path, clips=None, metres_per_unit=None):
        mpu = metres_per_unit if metres_per_unit is not None else (self.metres_per_unit or 1.0)
        save_skc(path, self.skeleton, self.clips if clips is None else clips, mpu)

    def __repr__(self):
        return '<Asset %s: %d joints, %d clips, %d meshes, %d skins>' % (
            self.path or '(memory)', self.skeleton.joint_count, len(self.clips), len(self.meshes), len(self.skins))


# ---- loaders --------------------------------------------------------------------------------------

def load_gltf(path, allocator=None):
    o = ffi.new('sk_gltf_options *')
    if allocator is not None:
        o.allocator = allocator.c[0]
    out = ffi.new('sk_asset **')
    call(C.sk_gltf_load_file, cstr(os.fspath(path)), o, out)
    return Asset(out[0], path=os.fspath(path), allocator=allocator)


def load_bvh(path, scale=0.0, allocator=None, fill_blank=False):
    """A BVH file; scale converts its units (e.g. 0.056444 for CMU captures in metres; 0 = 1).
    fill_blank: frames whose every channel is 0 (what capture exports write where nothing was
    recorded) take the pose between the recorded frames around them (io/bvh.h); else they are
    kept as written."""
    o = ffi.new('sk_bvh_options *')
    o.scale = scale
    o.blank = C.SK_BVH_BLANK_FILL if fill_blank else C.SK_BVH_BLANK_KEEP
    if allocator is not None:
        o.allocator = allocator.c[0]
    out = ffi.new('sk_asset **')
    call(C.sk_bvh_load_file, cstr(os.fspath(path)), o, out)
    return Asset(out[0], path=os.fspath(path), allocator=allocator)


def load_skc(path, allocator=None):
    out, mpu = ffi.new('sk_asset **'), ffi.new('double *')
    call(C.sk_skc_load_file, cstr(os.fspath(path)), ffi.NULL, c_of(allocator), out, mpu)
    return Asset(out[0], metres_per_unit=float(mpu[0]), path=os.fspath(path), allocator=allocator)


def import_file(path):
    """FBX, COLLADA and the other formats assimp reads (libskelanim_import, when built)."""
    out = ffi.new('sk_asset **')
    call(C.sk_import_file, cstr(os.fspath(path)), ffi.NULL, out)
    return Asset(out[0], path=os.fspath(path))


def load(path, **kw):
    """Any file by its extension: .gltf/.glb, .bvh, .skc, else assimp's formats (when built)."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext in ('.gltf', '.glb'):
        return load_gltf(path)
    if ext == '.bvh':
        return load_bvh(path, **kw)
    if ext == '.skc':
        return load_skc(path)
    return import_file(path)


def mannequin(height=0.0, segments=0, allocator=None):
    """The built-in character (skeleton, skinned mesh; clips idle, walk, run, crouch and more).
    allocator (here and in the loaders): None (the C library) or a skelanim.memory.Allocator."""
    d = ffi.new('sk_mannequin_desc *')
    d.height = height
    d.segments = segments
    out = ffi.new('sk_asset **')
    call(C.sk_mannequin_create, d, c_of(allocator), out)
    return Asset(out[0], metres_per_unit=1.0, path='mannequin', allocator=allocator)


def sprite(allocator=None):
    """The 2D cut-out character: the planar rig with a skinned flat mesh facing +X (no clips)."""
    out = ffi.new('sk_asset **')
    call(C.sk_sprite_create, c_of(allocator), out)
    return Asset(out[0], metres_per_unit=1.0, path='sprite', allocator=allocator)


def save_skc(path, skeleton, clips, metres_per_unit=1.0):
    arr = ffi.new('sk_clip *[]', [c._p for c in clips] or 1)
    call(C.sk_skc_write_file, cstr(os.fspath(path)), ffi.NULL, skeleton._p, arr, len(clips), float(metres_per_unit))


# ---- per frame --------------------------------------------------------------------------------------

def local_to_model(skeleton, pose, root=None):
    """Model matrices (joints, 4, 4) of a pose; root (4, 4) places the roots (None: identity)."""
    n = skeleton.joint_count
    out = np.empty((n, 16), np.float32)
    rb = ffi.NULL
    if root is not None:
        r = mat4_cm(root)
        rb = ptr(r, 'sk_mat4 *')
    call(C.sk_local_to_model, skeleton._p, pose.c, rb, ffi.cast('sk_mat4 *', ffi.from_buffer(out)), n)
    return mat4_rows(out)


def skin_palette(skin, model):
    """Skinning matrices (k, 4, 4): model[joints[i]] x inverse_bind[i]."""
    m = mat4_cm(model)
    k = len(skin.joints)
    out = np.empty((k, 16), np.float32)
    call(C.sk_skin_palette, ffi.addressof(skin._c), ptr(m, 'sk_mat4 *'), len(m),
         ffi.cast('sk_mat4 *', ffi.from_buffer(out)), k)
    return mat4_rows(out)


def blend(skeleton, poses, weights, slerp=False, masks=None, no_rest_fill=False, out=None):
    """Weighted blend of poses (sk_blend_poses); masks: per pose None or a per-joint factor array."""
    n = len(poses)
    if len(weights) != n:
        raise ValueError('blend: %d poses, %d weights' % (n, len(weights)))
    ins = ffi.new('sk_blend_input[]', max(n, 1))
    keep = []
    for i, p in enumerate(poses):
        ins[i].pose = p.c
        ins[i].weight = float(weights[i])
        if masks is not None and masks[i] is not None:
            m = np.ascontiguousarray(masks[i], np.float32)
            if m.shape != (skeleton.joint_count,):
                raise ValueError('blend: mask %d must have %d entries' % (i, skeleton.joint_count))
            keep.append(m)
            ins[i].mask = ptr(m, 'float *')
    o = ffi.new('sk_blend_options *')
    o.rotation = 1 if slerp else 0
    o.no_rest_fill = no_rest_fill
    res = out if out is not None else Pose(skeleton)
    call(C.sk_blend_poses, skeleton._p, ins, n, o, res.c)
    return res


def blend_two(skeleton, a, b, t, slerp=False, out=None):
    res = out if out is not None else Pose(skeleton)
    call(C.sk_blend_two, skeleton._p, a.c, b.c, float(t), ffi.NULL, bool(slerp), res.c)
    return res
