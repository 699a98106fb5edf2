"""Plots the height of the mannequin's feet (heel and toe points) over its walk cycle to a PNG.

    python3 foot_height.py [OUT.png]     (default: foot_height.png)
"""
import sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import skelanim as sk  # noqa: E402


def main(out='foot_height.png'):
    asset = sk.mannequin()
    skel, walk = asset.skeleton, asset.clip('walk')
    legs = sk.legs_from_mesh(asset, sk.find_legs(skel))       # heel / toe points from the mesh's sole
    times = np.linspace(0.0, walk.duration, 241)
    frames = walk.sample_many(skel, times)                     # (times, joints, 10), sampled in place
    fig, ax = plt.subplots(figsize=(8, 4))
    for leg in legs:
        heel, toe = [], []
        for local in frames:
            model = sk.local_to_model(skel, sk.Pose(skel, local, weights=False))
            toe_joint = leg.toe if leg.toe >= 0 else leg.ankle
            heel.append((model[leg.ankle] @ np.r_[leg.heel, 1.0])[1])
            toe.append((model[toe_joint] @ np.r_[leg.toe_tip, 1.0])[1])
        ax.plot(times, 100 * np.array(heel), label='%s heel' % leg.name)
        ax.plot(times, 100 * np.array(toe), '--', label='%s toe' % leg.name)
    analysis = sk.analyze(skel, walk, legs)
    for leg in analysis.legs:
        ax.axvline(leg.stance_time * walk.duration, color='grey', lw=0.5)
    ax.set_xlabel('time (s)')
    ax.set_ylabel('height above the ground (cm)')
    ax.set_title('mannequin walk: %.2f m/s, cycle %.2f s' % (analysis.cycle_speed, analysis.cycle_duration))
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print('wrote %s' % out)


if __name__ == '__main__':
    main(*sys.argv[1:2])
