"""Offline tools (libskelanim_offline): the clip compressor, resampling, the shell error."""
import numpy as np

from ._lib import C, call, ffi, ptr
from .core import Clip


def compress(clip, skeleton, error_cm=0.0, shell_cm=0.0, metres_per_unit=0.0, sample_rate=0.0, segment_len=0,
             max_work=0.0):
    """Compresses a clip (error in cm on shell vertices; zeros are the library's defaults: 0.01 cm,
    3 cm, metres, the clip's own key rate, 16 frames). Returns (compressed Clip, stats dict)."""
    o = ffi.new('sk_compress_options *')
    o.error_cm, o.shell_cm, o.metres_per_unit = error_cm, shell_cm, metres_per_unit
    o.sample_rate, o.segment_len, o.max_work = sample_rate, segment_len, max_work
    out, st = ffi.new('sk_clip **'), ffi.new('sk_compress_stats *')
    call(C.sk_clip_compress, clip._p, skeleton._p, o, ffi.NULL, out, st)
    stats = {k: (float(getattr(st, k)) if k in ('raw_bytes', 'sample_rate', 'max_error_cm', 'p99_error_cm')
                 else int(getattr(st, k)))
             for k in ('raw_bytes', 'compressed_bytes', 'frames', 'sample_rate', 'constant_tracks',
                       'animated_tracks', 'step_tracks', 'max_error_cm', 'p99_error_cm', 'error_samples')}
    stats['ratio'] = stats['raw_bytes'] / stats['compressed_bytes'] if stats['compressed_bytes'] else 0.0
    return Clip(out[0]), stats


def resample(clip, skeleton, fps, max_work=0.0):
    """The clip sampled at fps frames per second (max_work: the limit of work_limit; 0 = it)."""
    out = ffi.new('sk_clip **')
    if max_work:
        call(C.sk_clip_resample_limited, clip._p, skeleton._p, float(fps), float(max_work), ffi.NULL, out)
    else:
        call(C.sk_clip_resample, clip._p, skeleton._p, float(fps), ffi.NULL, out)
    return Clip(out[0])


def shell_error(reference, test, skeleton, shell, times):
    """(max, p99) distance between the two clips' shell vertices (units of the skeleton) at times."""
    t = np.ascontiguousarray(times, np.float64)
    mx, p99 = ffi.new('double *'), ffi.new('double *')
    call(C.sk_clip_shell_error, reference._p, test._p, skeleton._p, float(shell), ptr(t, 'double *'), len(t),
         ffi.NULL, mx, p99)
    return float(mx[0]), float(p99[0])


def work_limit(clip):
    return float(C.sk_clip_work_limit(clip._p))


def key_rate(clip):
    """The clip's own key rate (frames per second) when every track's keys are LINEAR and uniform at
    one rate; else 0. What compress stores such a clip at by default."""
    return float(C.sk_clip_key_rate(clip._p))
