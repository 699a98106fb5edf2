"""An sk_allocator written in Python that counts what the library allocates and frees.

Pass one as allocator= to the functions that take it (mannequin, the loaders, Skeleton.create,
analyze, MotionAnalysis.from_json, Locomotor): everything that object holds then comes from
it, and live_blocks / live_bytes say what is still held. An object allocated through it keeps
the allocator alive until the library has freed that object's memory (its destructor holds it),
so the callbacks never outlive their Python side. Memory itself comes from the C library
(malloc, realloc, free). Not thread-safe: use it from one thread (the package's calls are).
"""
from ._lib import ffi

ffi.cdef('void *malloc(size_t size); void *realloc(void *p, size_t size); void free(void *p);', override=True)
_libc = ffi.dlopen(None)


class Allocator:
    """Counts blocks: allocs, frees, live_blocks, live_bytes, peak_bytes; mismatched lists frees
    whose size differs from what was allocated (or of blocks it did not hand out). fail_after=n
    makes the (n+1)-th allocation fail (NULL), to check that running out of memory raises."""

    def __init__(self, fail_after=None):
        self.allocs = self.frees = self.live_bytes = self.peak_bytes = 0
        self.blocks = {}          # address -> size
        self.mismatched = []
        self.fail_after = fail_after
        self._cb_alloc = ffi.callback('void *(void *, size_t)', self._alloc)
        self._cb_realloc = ffi.callback('void *(void *, void *, size_t, size_t)', self._realloc)
        self._cb_free = ffi.callback('void (void *, void *, size_t)', self._free)
        self.c = ffi.new('sk_allocator *')
        self.c.alloc, self.c.realloc, self.c.free = self._cb_alloc, self._cb_realloc, self._cb_free

    @property
    def live_blocks(self):
        return len(self.blocks)

    def _take(self, size):
        if self.fail_after is not None and self.allocs >= self.fail_after:
            return False
        self.allocs += 1
        return True

    def _note(self, p, size):
        self.blocks[int(ffi.cast('uintptr_t', p))] = int(size)
        self.live_bytes += int(size)
        self.peak_bytes = max(self.peak_bytes, self.live_bytes)

    def _forget(self, p, size):
        a = int(ffi.cast('uintptr_t', p))
        had = self.blocks.pop(a, None)
        if had is None or had != int(size):
            self.mismatched.append((a, had, int(size)))
        self.live_bytes -= had if had is not None else 0

    def _alloc(self, user, size):
        if not self._take(size):
            return ffi.NULL
        p = _libc.malloc(max(int(size), 1))
        if p != ffi.NULL:
            self._note(p, size)
        return p

    def _realloc(self, user, p, old_size, new_size):
        if p == ffi.NULL:
            return self._alloc(user, new_size)
        if not self._take(new_size):
            return ffi.NULL
        q = _libc.realloc(p, max(int(new_size), 1))
        if q != ffi.NULL:
            self.frees += 1
            self._forget(p, old_size)
            self._note(q, new_size)
        return q

    def _free(self, user, p, size):
        if p == ffi.NULL:
            return
        self.frees += 1
        self._forget(p, size)
        _libc.free(p)

    def __repr__(self):
        return '<Allocator %d live blocks, %d bytes; %d allocs, %d frees>' % (
            self.live_blocks, self.live_bytes, self.allocs, self.frees)


def c_of(allocator):
    """The sk_allocator * to pass to C (NULL for None: the C library)."""
    return ffi.NULL if allocator is None else allocator.c


def owned(p, destroy, allocator=None):
    """ffi.gc(p, destroy); with an allocator, the destructor holds it so that its callbacks outlive
    the library's frees."""
    if allocator is None:
        return ffi.gc(p, destroy)
    return ffi.gc(p, lambda q, _a=allocator: destroy(q))
