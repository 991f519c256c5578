"""Ground truth of a rendered frame: where every ball and pin is, how much is visible."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .scene import CUSHION_BAND

TRUTH_FORMAT = "cueref.render_truth/1"


@dataclass
class ObjectTruth:
    """One ball or pin in one frame.

    ``centre``: projection (with distortion) of the 3D centre, px. ``box``: the visible
    part ``[x0, y0, x1, y1]`` in px (pixel edges; pixel ``(u, v)`` spans u-0.5..u+0.5),
    None when nothing shows. ``visible``: share of its silhouette not hidden by the
    player, the cue, graphics or a nearer object, 0 when it is not drawn.
    """

    id: str
    kind: str
    state: str
    centre: tuple[float, float]
    box: tuple[float, float, float, float] | None
    visible: float
    drawn: bool = True

    def to_dict(self) -> dict:
        return {"id": self.id, "kind": self.kind, "state": self.state,
                "centre": [round(self.centre[0], 3), round(self.centre[1], 3)],
                "box": None if self.box is None else [round(v, 1) for v in self.box],
                "visible": round(self.visible, 3)}


@dataclass
class FrameTruth:
    """Everything known about one rendered frame."""

    frame: int
    t: float
    objects: dict[str, ObjectTruth]
    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    homography: np.ndarray
    lux: np.ndarray  # (nx, ny) lux on the cloth at the cell centres
    lux_x: np.ndarray  # (nx,) cell centres along x, mm
    lux_y: np.ndarray  # (ny,) cell centres along y, mm
    lux_cell: tuple[float, float]  # cell size (dx, dy) mm
    lamps_on: tuple[bool, ...]
    exposure: float  # s
    gain: float
    auto_exposure: bool
    occluders: list[str] = field(default_factory=list)  # "player", "graphics"

    def to_dict(self) -> dict:
        return {
            "frame": self.frame, "t": round(self.t, 6),
            "objects": {k: v.to_dict() for k, v in self.objects.items()},
            "K": self.K.tolist(), "dist": self.dist.tolist(),
            "rvec": np.ravel(self.rvec).tolist(), "tvec": np.ravel(self.tvec).tolist(),
            "homography": self.homography.tolist(),
            "lux": {"x": self.lux_x.tolist(), "y": self.lux_y.tolist(),
                    "cell": list(self.lux_cell), "lux": np.round(self.lux, 1).tolist()},
            "lamps_on": list(self.lamps_on), "exposure": self.exposure, "gain": self.gain,
            "auto_exposure": self.auto_exposure, "occluders": self.occluders,
        }


def cushion_outline(table, cam, n: int = 400) -> list[np.ndarray]:
    """Pixels along each side of the cushion tops' outer edge, where the rails begin
    (distortion included): the cloth's outline a calibration should find. ``table``:
    an :class:`equipment.Table`; ``cam``: the frame's :class:`simworld.render.Camera`."""
    b = CUSHION_BAND
    corners = np.array([[-b, -b], [table.length + b, -b],
                        [table.length + b, table.width + b], [-b, table.width + b]])
    sides = []
    for i in range(4):
        s = np.linspace(0.0, 1.0, n)[:, None]
        xy = corners[i] + s * (corners[(i + 1) % 4] - corners[i])
        sides.append(cam.project(np.column_stack([xy, np.full(n, table.cushion_height)])))
    return sides


def corner_error(quad: np.ndarray, truth: np.ndarray) -> float:
    """Largest distance (px) between a found quadrilateral's corners and the true ones
    (``cushion_outline``'s side starts), for the best matching order of the corners."""
    best = np.inf
    for q in (quad, quad[::-1]):
        for shift in range(4):
            best = min(best, float(np.linalg.norm(np.roll(q, shift, axis=0) - truth,
                                                  axis=1).max()))
    return best
