"""CPU skinning (linear blend or dual quaternion) of a primitive."""
import numpy as np

from ._lib import C, call, ffi, mat4_cm, ptr

METHODS = {'lbs': 0, 'dqs': 1}


class SkinnedMesh:
    """A primitive prepared for CPU skinning (its own copy of the vertex data)."""

    def __init__(self, primitive):
        out = ffi.new('sk_skinned_mesh **')
        call(C.sk_skinned_mesh_create, ffi.addressof(primitive._c), ffi.NULL, out)
        self._p = ffi.gc(out[0], C.sk_skinned_mesh_destroy)
        self.vertex_count = int(C.sk_skinned_mesh_vertex_count(self._p))
        self.palette_size = int(C.sk_skinned_mesh_palette_size(self._p))
        self.has_normals = bool(C.sk_skinned_mesh_has_normals(self._p))

    def skin(self, palette, method='lbs', morph_weights=None, normals=False):
        """Skinned positions (v, 3) float32, and normals (v, 3) too when normals=True.
        palette: (k, 4, 4) skinning matrices (skin_palette)."""
        pal = mat4_cm(palette)
        job = ffi.new('sk_skin_job *')
        job.mesh = self._p
        job.method = METHODS[method]
        job.palette_count = len(pal)
        keep = [pal]
        if method == 'dqs':
            dq = ffi.new('sk_dual_quat[]', len(pal))
            call(C.sk_skin_dual_quats, ptr(pal, 'sk_mat4 *'), len(pal), dq)
            job.dual_quats = dq
            keep.append(dq)
        else:
            job.palette = ptr(pal, 'sk_mat4 *')
        if morph_weights is not None:
            mw = np.ascontiguousarray(morph_weights, np.float32)
            keep.append(mw)
            job.morph_weights = ptr(mw, 'float *')
        pos = np.empty((self.vertex_count, 3), np.float32)
        job.out_positions = ffi.cast('float *', ffi.from_buffer(pos))
        nrm = None
        if normals:
            nrm = np.empty((self.vertex_count, 3), np.float32)
            job.out_normals = ffi.cast('float *', ffi.from_buffer(nrm))
        call(C.sk_skin_run, job)
        return (pos, nrm) if normals else pos
