"""The binding against the headers: the cdef generated at build time declares exactly the SK_API
functions of include/skelanim (found here with a separate scan), each resolves in its layer's
shared library, and each is wrapped by the package or listed in skelanim.coverage with a reason."""
import glob
import os
import re

import pytest

import skelanim as sk
from skelanim import _lib
from skelanim.coverage import NOT_WRAPPED
from conftest import ROOT

PKG = os.path.dirname(sk.__file__)


def header_functions():
    out = {}
    for h in glob.glob(os.path.join(ROOT, 'include', 'skelanim', '*', '*.h')):
        text = re.sub(r'/\*.*?\*/', ' ', open(h).read(), flags=re.S)
        for m in re.finditer(r'\bSK_API\b[^;{]*?\b(sk_\w+)\s*\(', text, flags=re.S):
            out[m.group(1)] = os.path.basename(os.path.dirname(h))
    return out


def test_cdef_declares_the_headers_functions():
    want = header_functions()
    assert len(want) > 300
    assert _lib.FUNCTIONS == want


def test_every_function_resolves_in_its_library():
    n = 0
    for name, layer in _lib.FUNCTIONS.items():
        if layer == 'import' and not sk.has_import:
            with pytest.raises(NotImplementedError):
                getattr(sk.C, name)
            continue
        assert callable(getattr(sk.C, name)), name
        n += 1
    assert n >= len(_lib.FUNCTIONS) - 5


def test_wrapped_or_listed_with_a_reason():
    used = set()
    for f in glob.glob(os.path.join(PKG, '*.py')):
        used |= set(re.findall(r'\bC\.(sk_\w+)', open(f).read()))
    assert used <= set(_lib.FUNCTIONS), used - set(_lib.FUNCTIONS)
    rest = sorted(set(_lib.FUNCTIONS) - used)
    unlisted = [f for f in rest if not any(re.fullmatch(p, f) for p, _ in NOT_WRAPPED)]
    assert not unlisted, 'neither wrapped nor listed in skelanim/coverage.py: %s' % unlisted
    stale = [p for p, _ in NOT_WRAPPED if not any(re.fullmatch(p, f) for f in rest)]
    assert not stale, 'coverage.py entries that match no unwrapped function: %s' % stale
    print('C API: %d functions, %d wrapped, %d listed as not wrapped' % (len(_lib.FUNCTIONS), len(used), len(rest)))


def test_struct_sizes_match_the_compiler():
    """cffi lays the structs out from the cdef; a few sizes the headers fix (sk_error, sk_transform,
    sk_mat4) and one the compiler fixes, read from sk_skeleton's allocator field offset."""
    assert sk.ffi.sizeof('sk_error') == 4 + 512
    assert sk.ffi.sizeof('sk_transform') == 40 and sk.ffi.sizeof('sk_mat4') == 64
    assert sk.ffi.offsetof('sk_skeleton', 'rest_soa') == 8 * 8


def test_installed_package_is_the_one_tested():
    """make test's venv step sets SKELANIM_EXPECT_INSTALLED=1: the package must then come from the
    venv, with the cdef generated when it was built (not from the source tree)."""
    if os.environ.get('SKELANIM_EXPECT_INSTALLED') != '1':
        pytest.skip('run from the source tree')
    assert 'site-packages' in sk.__file__ and getattr(_lib._cdef, '__file__', '').endswith('_cdef.py')
    assert _lib._cdef.LIB_DIR and os.path.isdir(_lib._cdef.LIB_DIR)
