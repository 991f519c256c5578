"""A calibration: the camera model, the table profile and how much to trust them."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from equipment.files import atomic_write_text, read_json
from equipment.tables import Table, get_table

from .camera import CameraModel
from .detect import SIGHTS, ClothModel
from .lens import Lens

FORMAT = "cueref.calibration/1"


@dataclass
class Calibration:
    """Pixels <-> table mm for one camera, with the evidence it rests on."""

    table: str
    camera: CameraModel
    method: str = "auto"  # auto | corners
    residuals: dict[str, float] = field(default_factory=dict)  # diamond name -> mm
    #: diamond name -> (x, y) px in the frame where that diamond was seen: the evidence
    #: ``residuals`` measure, for a person or a script to check against the frame
    diamonds_px: dict[str, tuple[float, float]] = field(default_factory=dict)
    spot_residuals: dict[str, float] = field(default_factory=dict)
    quality: dict[str, Any] = field(default_factory=dict)
    cloth: ClothModel | None = None
    edge_offsets: dict[str, float] = field(default_factory=dict)  # cloth edge beyond nose, mm
    photometry: dict[str, Any] = field(default_factory=dict)  # light meter scale etc.
    warnings: list[str] = field(default_factory=list)
    sights: str = "light"  # the rails' sights as found (detect.sight_image)
    grain: bool = False  # the rails' grain was taken out first (diamonds.grain_tophat)
    lettering: bool = False  # the background was the local median (diamonds.lettering_tophat)
    lens: Lens | None = None  # the measured lens the fit was held to (calibration.lens)

    @property
    def profile(self) -> Table:
        return get_table(self.table)

    @property
    def ok(self) -> bool:
        return bool(self.quality.get("ok", False))

    def image_to_table(self, px, height: float = 0.0) -> np.ndarray:
        """Pixels (N, 2) to table mm of points ``height`` mm above the cloth (a ball
        centre: its radius)."""
        return self.camera.image_to_table(px, height)

    def table_to_image(self, xy, height: float = 0.0) -> np.ndarray:
        return self.camera.table_to_image(xy, height)

    def homography(self) -> np.ndarray:
        """Cloth plane (table mm) to undistorted pixels."""
        return self.camera.homography(0.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "table": self.table,
            "method": self.method,
            **self.camera.to_dict(),
            "homography_table_to_undistorted_px": np.round(self.homography(), 9).tolist(),
            "residuals_mm": {k: round(v, 3) for k, v in self.residuals.items()},
            "diamonds_px": {k: [round(float(v[0]), 3), round(float(v[1]), 3)]
                            for k, v in self.diamonds_px.items()},
            "spot_residuals_mm": {k: round(v, 3) for k, v in self.spot_residuals.items()},
            "quality": self.quality,
            "edge_offsets_mm": {k: round(v, 2) for k, v in self.edge_offsets.items()},
            "sights": self.sights,
            "grain": self.grain,
            "lettering": self.lettering,
            "cloth": self.cloth.to_dict() if self.cloth else None,
            "photometry": self.photometry,
            "warnings": self.warnings,
            "lens": self.lens.to_dict() if self.lens is not None else None,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def save(self, path: str | os.PathLike) -> Path:
        return atomic_write_text(path, self.to_json() + "\n")

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str = "calibration") -> Calibration:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ValueError(f"{where}: not a cueref calibration (format {FORMAT!r} expected)")
        if d.get("sights", "light") not in SIGHTS:
            raise ValueError(f"{where}: bad field 'sights': {d.get('sights')!r} (known: "
                             f"{', '.join(SIGHTS)})")
        try:
            cam = CameraModel.from_dict(d)
            get_table(d["table"])
        except KeyError as exc:
            raise ValueError(f"{where}: missing or bad field {exc.args[0]!r}") from None
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        try:
            seen = {str(k): (float(v[0]), float(v[1]))
                    for k, v in dict(d.get("diamonds_px") or {}).items()}
        except (TypeError, IndexError, ValueError):
            raise ValueError(f"{where}: bad field 'diamonds_px' (diamond name -> [x, y] "
                             "px expected)") from None
        return cls(table=d["table"], camera=cam, method=d.get("method", "auto"),
                   residuals=dict(d.get("residuals_mm", {})), diamonds_px=seen,
                   spot_residuals=dict(d.get("spot_residuals_mm", {})),
                   quality=dict(d.get("quality", {})),
                   cloth=ClothModel.from_dict(d["cloth"]) if d.get("cloth") else None,
                   edge_offsets=dict(d.get("edge_offsets_mm", {})),
                   photometry=dict(d.get("photometry", {})),
                   warnings=list(d.get("warnings", [])),
                   sights=d.get("sights", "light"), grain=bool(d.get("grain", False)),
                   lettering=bool(d.get("lettering", False)),
                   lens=Lens.from_dict(d["lens"], f"{where}: lens") if d.get("lens")
                   else None)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Calibration:
        return cls.from_dict(read_json(path, "calibration"), str(path))
