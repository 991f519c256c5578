"""How far apart the colour clusters of a cloth clipping in its own channel lie.

For benchmark scenes whose cloth the cloth finder looks for a second time with only
pixels clipped in two channels taken as colourless (``calibration.detect.find_cloth``),
this clusters the work copy as that look does and prints, from the renderer's truth,
which clusters lie on the cloth (most of their pixels inside its true outline, and a
twentieth of it at least), how far each lies from the nearest other cloth cluster and
from the nearest cluster off the cloth, in the features' chromaticity: what
``detect.CLIPPED_CHROMA_STEP`` must join and must not.

    python bench/clipped_cloth_clusters.py 284 1309 2310 6256
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration import detect  # noqa: E402
from calibration.diamonds import outline_mm, table_corners  # noqa: E402
from simworld.render.api import calibration_scene  # noqa: E402

ON_CLOTH = 0.7  # share of a cluster's pixels inside the true outline
CLOTH_SHARE = 0.05  # share of the cloth's area a cloth cluster must hold


def cloth_clusters(seed: int) -> dict:
    """The scene's clusters in the second look, and which lie on the cloth."""
    disc, cam, _, img, _ = calibration_scene(seed)
    _, small, scale = detect._work_copy(img, detect.BLUR)
    labels, centres = detect._cluster_labels(small, detect._clipped(small, 2))
    corners = table_corners(disc.table, outline_mm(disc.table, "cloth"))
    px = cam.project(np.column_stack([corners, np.zeros(len(corners))])) / scale
    inside = np.zeros(small.shape[:2], np.uint8)
    cv2.fillPoly(inside, [np.round(px).astype(np.int32)], 1)
    cloth = [k for k in range(len(centres))
             if (labels == k).any()
             and inside[labels == k].mean() >= ON_CLOTH
             and ((labels == k) & (inside > 0)).sum() >= CLOTH_SHARE * inside.sum()]
    chroma = centres[:, :2]
    d = np.linalg.norm(chroma[:, None] - chroma[None], axis=2)
    others = [k for k in range(len(centres)) if k not in cloth]
    return {"seed": seed, "cloth": cloth,
            "to_cloth": [float(np.min([d[k, j] for j in cloth if j != k], initial=np.inf))
                         for k in cloth],
            "to_other": [float(np.min([d[k, j] for j in others], initial=np.inf))
                         for k in cloth]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seeds", type=int, nargs="+")
    args = ap.parse_args()
    print(f"CHROMA_STEP {detect.CHROMA_STEP}, CLIPPED_CHROMA_STEP "
          f"{detect.CLIPPED_CHROMA_STEP}")
    for seed in args.seeds:
        r = cloth_clusters(seed)
        near = ", ".join(f"{a:.2f}" for a in r["to_cloth"])
        far = ", ".join(f"{a:.2f}" for a in r["to_other"])
        print(f"seed {seed}: {len(r['cloth'])} cloth clusters; nearest other cloth "
              f"cluster {near}; nearest cluster off the cloth {far}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
