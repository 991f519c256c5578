"""The light meter's noise restoration (calibration/compression.py) on benchmark scenes,
against the renderer's own noise.

    python bench/noise_restored.py 2543 2432 8

For each scene of ``simworld.render.calibration_scene``, with its true camera: the
luma noise the meter fitted from the blocks' means (codes squared) beside the
renderer's at three places on the cloth (the scene rendered again without noise and
without JPEG: the variance of the difference, and the level there), the range of the
cells' factors, and the worst cell against the renderer's lux map with and without the
restoration. ``--dark 256`` fits the noise over every cell instead of the dark ones.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import calibration.light as light  # noqa: E402
from bench.bench_light import read_light  # noqa: E402
from calibration import Calibration, CameraModel, LightMeter  # noqa: E402
from simworld.render import calibration_scene  # noqa: E402
from simworld.render.renderer import GAMMA  # noqa: E402

#: where on the cloth the renderer's noise is measured (shares of length and width)
PLACES = ((0.5, 0.5), (0.25, 0.35), (0.06, 0.1))
PATCH = 20  # px each side of the place


def truth_noise(seed: int, camera: CameraModel, table) -> list[tuple[float, float]]:
    """(luma level, luma noise variance) at each of PLACES: the scene without JPEG, less
    the same without noise."""
    noisy = calibration_scene(seed, look_changes={"jpeg_quality": None})[3]
    clean = calibration_scene(seed, look_changes={"jpeg_quality": None, "noise": False})[3]
    out = []
    for fx, fy in PLACES:
        u, v = camera.table_to_image(np.array([[table.length * fx, table.width * fy]]))[0]
        box = (slice(int(v) - PATCH, int(v) + PATCH), slice(int(u) - PATCH, int(u) + PATCH))
        a = cv2.cvtColor(noisy[box], cv2.COLOR_BGR2GRAY).astype(float)
        b = cv2.cvtColor(clean[box], cv2.COLOR_BGR2GRAY).astype(float)
        out.append((float(b.mean()), float((a - b).var())))
    return out


def evaluate(seed: int) -> str:
    disc, cam, look, img, truth = calibration_scene(seed)
    if truth.auto_exposure:
        return f"scene {seed}: auto exposure, no lux"
    camera = CameraModel(truth.K, truth.dist, truth.rvec, truth.tvec, cam.size)
    lux = np.asarray(truth.lux, float)
    fitted, factors = {}, {}
    noise_fit = light.sensor_noise

    def spy_fit(*args):
        fitted["fit"] = noise_fit(*args)
        return fitted["fit"]

    def meter() -> LightMeter:
        return LightMeter(Calibration(disc.table.name, camera), vignette=float(look.vignette),
                          cells=lux.shape, gamma=GAMMA)

    restored = LightMeter._noise_restored

    def spy_factor(self, *args):
        factors["f"] = restored(self, *args)
        return factors["f"]

    light.sensor_noise = spy_fit
    LightMeter._noise_restored = spy_factor
    try:
        with_it = read_light(meter(), img, truth)
    finally:
        light.sensor_noise = noise_fit
        LightMeter._noise_restored = restored
    LightMeter._noise_restored = lambda self, frame, bgr, certain: np.ones(bgr.shape[:2])
    try:
        without = read_light(meter(), img, truth)
    finally:
        LightMeter._noise_restored = restored
    g = GAMMA
    lines = [f"scene {seed}: {look.cloth} cloth, JPEG {look.jpeg_quality}, gain "
             f"{look.gain:.2f}; worst cell {with_it.get('lux_rel_max', np.nan):.2%} with the "
             f"restoration, {without.get('lux_rel_max', np.nan):.2%} without"]
    f = factors.get("f")
    if f is not None and (f != 1).any():
        lines.append(f"  factors {f.min():.3f}-{f.max():.3f}")
    elif "fit" in fitted:
        lines.append("  nothing given back: the dark cells' spread is the weave's")
    else:
        lines.append("  nothing given back: uncompressed, or too few dark cells")
    shot, read, _ = fitted.get("fit", (np.nan, np.nan, np.nan))
    for level, var in truth_noise(seed, camera, disc.table):
        model = shot * level ** (2 - g) + read * level ** (2 - 2 * g)
        lines.append(f"  luma level {level:5.1f}: noise {var:6.1f} codes^2 rendered, "
                     f"{model:6.1f} fitted")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds", type=int, nargs="+")
    ap.add_argument("--dark", type=float, default=light.NOISE_DARK, metavar="LUMA",
                    help="fit the noise over cells darker than this luma code (the "
                         f"meter's: {light.NOISE_DARK}; 256 for every cell)")
    args = ap.parse_args()
    light.NOISE_DARK = args.dark
    for seed in args.seeds:
        print(evaluate(seed), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
