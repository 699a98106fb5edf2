"""An independent forward kinematics in numpy (double precision) for the tests."""
import numpy as np


def quat_matrix(q):
    x, y, z, w = (float(v) for v in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def trs(local):
    t, r, s = local[0:3], local[3:7], local[7:10]
    m = np.eye(4)
    m[:3, :3] = quat_matrix(np.asarray(r, float) / np.linalg.norm(r)) * np.asarray(s, float)
    m[:3, 3] = t
    return m


def model(parents, local, root=None):
    out = np.empty((len(parents), 4, 4))
    for j, p in enumerate(parents):
        m = trs(local[j])
        out[j] = (out[p] if p >= 0 else (np.eye(4) if root is None else root)) @ m
    return out
