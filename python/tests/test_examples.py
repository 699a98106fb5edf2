"""The two example scripts run: the foot-height plot writes a PNG; the folder compressor writes one
.skc per capture that loads back, and prints one table row per file and a total."""
import os
import struct
import subprocess
import sys

import skelanim as sk

EXAMPLES = os.path.join(os.path.dirname(__file__), '..', 'examples')


def run(args, cwd):
    return subprocess.run([sys.executable, *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))


def test_foot_height_png(tmp_path):
    out = tmp_path / 'feet.png'
    run([os.path.join(EXAMPLES, 'foot_height.py'), str(out)], tmp_path)
    data = out.read_bytes()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    w, h = struct.unpack('>II', data[16:24])
    assert (w, h) == (800, 400) and len(data) > 10000


def test_compress_folder(shared, tmp_path):
    src = os.path.join(shared, 'mocap', 'bvh')
    r = run([os.path.join(EXAMPLES, 'compress_folder.py'), src, str(tmp_path / 'out'), '--scale', '0.056444',
             '--limit', '3'], tmp_path)
    lines = r.stdout.strip().split('\n')
    assert lines[0].split()[:3] == ['file', 'frames', 'raw'] and lines[-1].startswith('total (3 files)')
    rows = lines[1:-1]
    assert len(rows) == 3
    names = sorted(os.listdir(src))[:3]
    for row, name in zip(rows, [n for n in names if n.endswith('.bvh')]):
        assert row.split()[0] == name
        assert float(row.split()[5]) <= 0.01  # max error cm within the default bound
        a = sk.load_skc(str(tmp_path / 'out' / (name[:-4] + '.skc')))
        assert a.clips[0].is_compressed and abs(a.metres_per_unit - 0.056444) < 1e-12
    assert '[3/3]' in r.stderr  # the progress line
