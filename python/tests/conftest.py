"""Shared fixtures. The repository root is two folders up; ../shared beside the checkout holds the
glTF models with their three.js oracles and the motion captures. Under CI=true a missing input is
a failure, never a skip."""
import os
import shutil

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
# Strict as tests/lib.sh: CI set to anything but '', '0' or 'false', or SK_REQUIRE_SHARED=1.
CI = os.environ.get('CI', '').lower() not in ('', '0', 'false') or os.environ.get('SK_REQUIRE_SHARED') == '1'


def require(path, what):
    if not os.path.exists(path):
        msg = '%s not found at %s' % (what, path)
        if CI:
            pytest.fail(msg + ' (CI is set: a missing input is a failure)')
        pytest.skip(msg)
    return path


@pytest.fixture(scope='session')
def shared():
    return require(os.environ.get('SKELANIM_SHARED') or os.path.join(ROOT, '..', 'shared'), '../shared')


@pytest.fixture(scope='session')
def cli():
    """The skelanim command-line tool of the same build (C results to compare with)."""
    cands = [os.environ.get('SKELANIM_CLI')]
    if os.environ.get('SKELANIM_LIB_DIR'):
        cands.append(os.path.join(os.environ['SKELANIM_LIB_DIR'], 'skelanim'))
    cands += [os.path.join(ROOT, 'build', 'skelanim'), shutil.which('skelanim')]
    for c in cands:
        if c and os.access(c, os.X_OK):
            return c
    return require('/nonexistent/skelanim', 'the skelanim tool (set SKELANIM_CLI)')


@pytest.fixture(scope='session')
def mannequin():
    import skelanim
    return skelanim.mannequin()
