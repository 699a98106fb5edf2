"""Builds the skelanim package: pure Python; skelanim/_cdef.py is generated here from the C headers.

The headers are looked for in $SKELANIM_INCLUDE_DIR, the checkout's include/ beside this folder,
$SKELANIM_PREFIX/include, /usr/local/include. The folder of the libraries, when known at build time
($SKELANIM_LIB_DIR, else $SKELANIM_PREFIX/lib), is recorded for the package to look in.
"""
import importlib.util
import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _gen_module():
    spec = importlib.util.spec_from_file_location('gen_cdef', os.path.join(HERE, 'skelanim_build', 'gen_cdef.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _include_dir():
    cands = [os.environ.get('SKELANIM_INCLUDE_DIR'), os.path.join(HERE, '..', 'include')]
    if os.environ.get('SKELANIM_PREFIX'):
        cands.append(os.path.join(os.environ['SKELANIM_PREFIX'], 'include'))
    cands.append('/usr/local/include')
    for c in cands:
        if c and os.path.isfile(os.path.join(c, 'skelanim.h')):
            return os.path.abspath(c)
    raise SystemExit('skelanim: include/skelanim.h not found (tried %s); set SKELANIM_INCLUDE_DIR'
                     % ', '.join(c for c in cands if c))


def _lib_dir():
    if os.environ.get('SKELANIM_LIB_DIR'):
        return os.path.abspath(os.environ['SKELANIM_LIB_DIR'])
    if os.environ.get('SKELANIM_PREFIX'):
        return os.path.join(os.path.abspath(os.environ['SKELANIM_PREFIX']), 'lib')
    return None


class BuildPy(build_py):
    def run(self):
        super().run()
        cdef, floats, functions = _gen_module().generate(_include_dir())
        out = os.path.join(self.build_lib, 'skelanim', '_cdef.py')
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, 'w', encoding='utf-8') as f:
            f.write('# Generated when the package was built, from the public C headers. Do not edit.\n')
            f.write('CDEF = %r\nFLOAT_CONSTANTS = %r\nFUNCTIONS = %r\nLIB_DIR = %r\n'
                    % (cdef, floats, functions, _lib_dir()))


setup(cmdclass={'build_py': BuildPy})
