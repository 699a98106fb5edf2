"""Compresses every .bvh file of a folder into .skc files and prints a table of sizes and errors.

    python3 compress_folder.py FOLDER OUTDIR [--scale M] [--error-cm E] [--limit N]

--scale: metres per file unit (0.056444 for CMU captures); --limit: the first N files only.
"""
import argparse
import glob
import os
import sys
import time

import skelanim as sk


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('folder')
    ap.add_argument('outdir')
    ap.add_argument('--scale', type=float, default=1.0)
    ap.add_argument('--error-cm', type=float, default=0.01)
    ap.add_argument('--limit', type=int, default=0)
    a = ap.parse_args(argv)
    files = sorted(glob.glob(os.path.join(a.folder, '*.bvh')))
    if a.limit:
        files = files[:a.limit]
    if not files:
        sys.exit('no .bvh files in %s' % a.folder)
    os.makedirs(a.outdir, exist_ok=True)
    rows, failed = [], 0
    for i, path in enumerate(files):
        name = os.path.basename(path)
        sys.stderr.write('\r[%d/%d] %-40s' % (i + 1, len(files), name))
        sys.stderr.flush()
        t0 = time.perf_counter()
        try:
            asset = sk.load_bvh(path)
            clip, st = sk.compress(asset.clips[0], asset.skeleton, error_cm=a.error_cm, metres_per_unit=a.scale)
            sk.save_skc(os.path.join(a.outdir, name[:-4] + '.skc'), asset.skeleton, [clip], a.scale)
        except sk.Error as e:
            rows.append((name, None, str(e)))
            failed += 1
            continue
        rows.append((name, st, time.perf_counter() - t0))
    sys.stderr.write('\r%s\r' % (' ' * 60))
    print('%-28s %7s %10s %10s %7s %9s %9s %7s' % ('file', 'frames', 'raw KiB', 'skc KiB', 'ratio', 'max cm',
                                                  'p99 cm', 's'))
    raw = comp = 0
    for name, st, extra in rows:
        if st is None:
            print('%-28s failed: %s' % (name, extra))
            continue
        raw += st['raw_bytes']
        comp += st['compressed_bytes']
        print('%-28s %7d %10.1f %10.1f %7.1f %9.4f %9.4f %7.2f' % (
            name, st['frames'], st['raw_bytes'] / 1024, st['compressed_bytes'] / 1024, st['ratio'],
            st['max_error_cm'], st['p99_error_cm'], extra))
    print('%-28s %7s %10.1f %10.1f %7.1f' % ('total (%d files)' % (len(rows) - failed), '', raw / 1024, comp / 1024,
                                            raw / comp if comp else 0))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
