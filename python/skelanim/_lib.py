"""The cffi handle (ABI mode), the shared libraries, errors and zero-copy numpy views.

The declarations come from the public C headers (skelanim/_cdef.py, generated when the package
is built; from a source checkout without it they are generated on import). The libraries are
found, in this order, in $SKELANIM_LIB_DIR, in the folder recorded when the package was built
(SKELANIM_LIB_DIR or SKELANIM_PREFIX/lib at build time), by the dynamic loader's own search
(ldconfig's cache, LD_LIBRARY_PATH), and in /usr/local/lib.
"""
import os
import weakref

import cffi
import numpy as np

try:
    from . import _cdef
except ImportError:  # a source checkout: generate from the headers beside it
    _here = os.path.dirname(os.path.abspath(__file__))
    import importlib.util
    import sys
    import types
    _spec = importlib.util.spec_from_file_location(
        '_skelanim_gen_cdef', os.path.join(_here, '..', 'skelanim_build', 'gen_cdef.py'))
    _gen = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_gen)
    _inc = os.environ.get('SKELANIM_INCLUDE_DIR') or os.path.join(_here, '..', '..', 'include')
    _c, _f, _fn = _gen.generate(_inc)
    _cdef = types.SimpleNamespace(CDEF=_c, FLOAT_CONSTANTS=_f, FUNCTIONS=_fn, LIB_DIR=None)
    sys.modules[__name__ + '._cdef'] = _cdef

ffi = cffi.FFI()
ffi.cdef(_cdef.CDEF)

# Library of each header layer (docs/architecture.md, "The library boundary").
LAYER_LIBRARY = {
    'core': 'skelanim', 'anim': 'skelanim', 'ik': 'skelanim', 'skin': 'skelanim', 'content': 'skelanim',
    'world': 'skelanim', 'locomotion': 'skelanim', 'offline': 'skelanim_offline', 'io': 'skelanim_io',
    'batch': 'skelanim_batch', 'import': 'skelanim_import',
}
_SOVERSION = '0'
_OPTIONAL = {'skelanim_import'}  # built only with assimp (SK_IMPORT)


class LibraryNotFound(ImportError):
    pass


def _candidates(name):
    fname = 'lib%s.so.%s' % (name, _SOVERSION)
    dirs = []
    if os.environ.get('SKELANIM_LIB_DIR'):
        dirs.append(os.environ['SKELANIM_LIB_DIR'])
    if getattr(_cdef, 'LIB_DIR', None):
        dirs.append(_cdef.LIB_DIR)
    out = [os.path.join(d, fname) for d in dirs]
    out.append(fname)  # the dynamic loader's search
    out.append(os.path.join('/usr/local/lib', fname))
    return out


def _open(name):
    tried = []
    for path in _candidates(name):
        if os.sep in path and not os.path.exists(path):
            tried.append(path + ' (missing)')
            continue
        try:
            return ffi.dlopen(path), path
        except OSError as e:
            tried.append('%s (%s)' % (path, e))
    raise LibraryNotFound('lib%s.so.%s not found; set SKELANIM_LIB_DIR to the folder that holds the skelanim '
                          'libraries (a build folder, or PREFIX/lib after make install). Tried: %s'
                          % (name, _SOVERSION, '; '.join(tried)))


# libskelanim first: the others need it, and the loader reuses it by its soname.
libraries = {}
library_paths = {}
for _name in ('skelanim', 'skelanim_offline', 'skelanim_io', 'skelanim_batch', 'skelanim_import'):
    try:
        libraries[_name], library_paths[_name] = _open(_name)
    except LibraryNotFound:
        if _name not in _OPTIONAL:
            raise

FUNCTIONS = dict(_cdef.FUNCTIONS)  # function -> header layer
FLOAT_CONSTANTS = dict(_cdef.FLOAT_CONSTANTS)
has_import = 'skelanim_import' in libraries


class _Lib:
    """One namespace over the libraries: C.<function name> is the function from its layer's library."""

    def __getattr__(self, name):
        layer = FUNCTIONS.get(name)
        if layer is None:
            if name in FLOAT_CONSTANTS:
                return FLOAT_CONSTANTS[name]
            if name.startswith('SK_'):  # integer macros and enum constants
                return getattr(libraries['skelanim'], name)
            raise AttributeError('%s is not a function of the public headers' % name)
        libname = LAYER_LIBRARY[layer]
        lib = libraries.get(libname)
        if lib is None:
            raise NotImplementedError('%s needs lib%s, which this build does not have' % (name, libname))
        fn = getattr(lib, name)
        setattr(self, name, fn)
        return fn


C = _Lib()

# ---- errors --------------------------------------------------------------------------------------


class Error(Exception):
    """A failure the library reported: code (an int, sk_result), code_name ("SK_ERR_PARSE") and the
    library's message (str(e))."""

    def __init__(self, code, message):
        self.code = int(code)
        self.code_name = ffi.string(C.sk_result_string(code)).decode()
        self.message = message
        super().__init__(message if message else self.code_name)


class InvalidArgument(Error, ValueError):
    pass


class OutOfMemory(Error, MemoryError):
    pass


class IOFailure(Error, OSError):
    pass


class ParseError(Error):
    pass


class InvalidData(Error):
    pass


class Unsupported(Error):
    pass


class LimitExceeded(Error):
    pass


_ERROR_CLASS = {1: InvalidArgument, 2: OutOfMemory, 3: IOFailure, 4: ParseError, 5: InvalidData, 6: Unsupported,
                7: LimitExceeded}


def raise_error(code, err):
    msg = ffi.string(err.message).decode('utf-8', 'replace') if err is not None else ''
    raise _ERROR_CLASS.get(int(code), Error)(code, msg)


def call(fn, *args):
    """Calls fn(*args, &err) and raises the library's error when it does not return SK_OK."""
    err = ffi.new('sk_error *')
    r = fn(*args, err)
    if r != 0:
        raise_error(r, err)
    return r


def cstr(s):
    if s is None:
        return ffi.NULL
    return s.encode('utf-8') if isinstance(s, str) else bytes(s)


def pystr(p):
    return '' if p == ffi.NULL else ffi.string(p).decode('utf-8', 'replace')


# ---- numpy views over C memory --------------------------------------------------------------------


class _View:
    """numpy's array interface over C memory that keeps its owner alive (array.base is this)."""

    def __init__(self, owner, ptr, shape, typestr, readonly):
        self.owner = owner
        self.__array_interface__ = {
            'data': (int(ffi.cast('uintptr_t', ptr)), bool(readonly)),
            'shape': tuple(shape), 'typestr': typestr, 'version': 3,
        }


def view(owner, ptr, shape, dtype=np.float32, readonly=True):
    """An ndarray over n elements at ptr (no copy); owner is kept alive as long as the array.
    A NULL pointer or an empty shape gives an empty (owned) array."""
    dtype = np.dtype(dtype)
    if ptr == ffi.NULL or 0 in shape:
        return np.zeros(shape, dtype)
    return np.asarray(_View(owner, ptr, shape, dtype.str, readonly))


def cached_view(obj, key, make):
    """make() (an ndarray viewing memory that obj owns), cached in obj weakly. An object must never
    hold its own views strongly: a numpy array is invisible to Python's cycle collector, so
    obj -> array -> (array.base) -> obj would never be freed, and neither would the C memory."""
    cache = obj.__dict__.setdefault('_views', {})
    r = cache.get(key)
    a = r() if r is not None else None
    if a is None:
        a = make()
        if isinstance(a, np.ndarray):
            cache[key] = weakref.ref(a)
    return a


class view_property:
    """A read-only attribute whose value, an ndarray viewing the object's memory, is made on first
    access and cached weakly (cached_view)."""

    def __init__(self, fn):
        self.fn, self.name, self.__doc__ = fn, fn.__name__, fn.__doc__

    def __set_name__(self, owner, name):
        self.name = name  # the cache key: the attribute's name (fn may be a lambda)

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return cached_view(obj, self.name, lambda: self.fn(obj))


def as_buffer(arr, dtype, shape_tail, name):
    """A C-contiguous array of dtype (converted once if it is not) and a cffi pointer into it."""
    a = np.ascontiguousarray(arr, dtype=dtype)
    if shape_tail is not None and a.shape[1:] != tuple(shape_tail):
        raise ValueError('%s: expected shape (n, %s), got %s' % (name, ', '.join(map(str, shape_tail)), a.shape))
    return a


def ptr(arr, ctype):
    """cffi pointer to a C-contiguous numpy array's data (the array must outlive the call)."""
    if not arr.flags['C_CONTIGUOUS']:
        raise ValueError('array must be C-contiguous')
    return ffi.cast(ctype, ffi.from_buffer(arr, require_writable=False))


def mat4_rows(arr_cm):
    """(n, 16) column-major floats (sk_mat4) -> (n, 4, 4) view with m[i, row, col]."""
    return arr_cm.reshape(-1, 4, 4).transpose(0, 2, 1)


def mat4_cm(mats):
    """(n, 4, 4) row/col matrices -> C-contiguous column-major (n, 16) float32 (a view when mats is
    one of ours)."""
    m = np.asarray(mats, dtype=np.float32)
    if m.ndim == 2:
        m = m[None]
    if m.shape[1:] != (4, 4):
        raise ValueError('expected (n, 4, 4) matrices, got %s' % (m.shape,))
    return np.ascontiguousarray(m.transpose(0, 2, 1)).reshape(-1, 16)
