"""The debug picture: what the calibration found, drawn over the frame.

Rails (cushion noses and the outer rail edge), a 355 mm grid on the cloth, each
diamond's expected place (circle; green when found within 1 mm, orange within 3 mm,
red beyond or missing), spots, pockets, and the quality figure in a corner. A
person sees at a glance whether the lines sit on the table. When the light meter has
fitted the lamps (``photometry["lamps"]``) each is drawn at the point under it, with
the circle where its light falls to half and its height: they should sit on the
bright pools of the cloth.
"""

from __future__ import annotations

import cv2
import numpy as np

from .fit import diamond_names, max_predicted_mm
from .light import lamps_from_records
from .result import Calibration


def _polyline(img, px: np.ndarray, colour, thick: int = 2, closed: bool = True) -> None:
    pts = np.round(px * 4).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(img, [pts], closed, colour, thick, cv2.LINE_AA, 2)


def _dense_rect(x0, y0, x1, y1, n: int = 40) -> np.ndarray:
    s = np.linspace(0, 1, n, endpoint=False)
    return np.concatenate([
        np.column_stack([x0 + s * (x1 - x0), np.full(n, y0)]),
        np.column_stack([np.full(n, x1), y0 + s * (y1 - y0)]),
        np.column_stack([x1 - s * (x1 - x0), np.full(n, y1)]),
        np.column_stack([np.full(n, x0), y1 - s * (y1 - y0)])])


def draw_debug(frame: np.ndarray, calib: Calibration) -> np.ndarray:
    img = frame.copy()
    cam = calib.camera
    t = calib.profile
    L, W = t.length, t.width
    rw = t.rail_width
    _polyline(img, cam.table_to_image(_dense_rect(0, 0, L, W), t.cushion_height), (0, 255, 255))
    _polyline(img, cam.table_to_image(_dense_rect(-rw, -rw, L + rw, W + rw),
                                      t.rail_top_height), (255, 200, 0))
    step = 355.0 if t.name.startswith(("carom", "italian")) else t.width / 4
    for x in np.arange(step, L - 1, step):
        _polyline(img, cam.table_to_image(np.column_stack([np.full(20, x),
                                                           np.linspace(0, W, 20)])),
                  (200, 200, 200), 1, closed=False)
    for y in np.arange(step, W - 1, step):
        _polyline(img, cam.table_to_image(np.column_stack([np.linspace(0, L, 40),
                                                           np.full(40, y)])),
                  (200, 200, 200), 1, closed=False)
    # head marker: the head cushion drawn thick so orientation is visible
    _polyline(img, cam.table_to_image(np.column_stack([np.zeros(20), np.linspace(0, W, 20)]),
                                      t.cushion_height), (255, 0, 255), 4, closed=False)
    names = diamond_names(t)
    px = cam.table_to_image(t.diamonds, t.rail_top_height)
    for name, p in zip(names, px, strict=True):
        r = calib.residuals.get(name)
        colour = ((0, 0, 255) if r is None or r > 3 else (0, 165, 255) if r > 1
                  else (0, 220, 0))
        cv2.circle(img, (int(round(p[0])), int(round(p[1]))), 9, colour, 2, cv2.LINE_AA)
        seen = calib.diamonds_px.get(name)
        if seen is not None:  # where it was seen: a dot off the circle's centre is its miss
            cv2.circle(img, (int(round(seen[0] * 16)), int(round(seen[1] * 16))), 2 * 16,
                       colour, -1, cv2.LINE_AA, shift=4)
    for name, xy in t.spots.items():
        p = cam.table_to_image([xy])[0]
        colour = (0, 220, 0) if name in calib.spot_residuals else (0, 0, 255)
        c = (int(round(p[0])), int(round(p[1])))
        cv2.drawMarker(img, c, colour, cv2.MARKER_CROSS, 14, 2, cv2.LINE_AA)
    for pk in t.pockets:
        p = cam.table_to_image([pk.centre], t.cushion_height)[0]
        cv2.circle(img, (int(round(p[0])), int(round(p[1]))), 14, (255, 0, 255), 2, cv2.LINE_AA)
    _draw_lamps(img, calib)
    q = calib.quality
    ok = q.get("ok", False)
    pred = q.get("predicted_max_error_mm")
    # a calibration taken as given (corners by hand) whose self-check is over the bar
    over = ok and pred is not None and pred > max_predicted_mm(calib.lens is not None)
    lines = [f"{calib.table}  {'OK' if ok else 'NOT TRUSTED'}  ({calib.method})"
             + ("  PREDICTED ERROR OVER THE BAR" if over else ""),
             f"diamonds {q.get('diamonds_found', 0)}/{q.get('diamonds_expected', '?')}  "
             f"rms {q.get('diamond_rms_mm', float('nan'))} mm  "
             f"predicted max {q.get('predicted_max_error_mm') or '-'} mm "
             f"(balls {q.get('predicted_ball_error_mm') or '-'} mm)"]
    given = [f"height {h[0]:.0f} +- {h[1]:.0f} mm given"
             for h in [q.get("camera_height_measured_mm")] if h]
    if calib.lens is not None:
        chi2 = q.get("lens_chi2")
        given.append("lens measured" + (f" (chi-square {chi2:.1f})" if chi2 is not None else ""))
    if given:
        lines.append("; ".join(given))
    for i, text in enumerate(lines):
        y = 28 + 26 * i
        cv2.putText(img, text, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(img, text, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                    (0, 165, 255) if over else (0, 230, 0) if ok else (0, 0, 255), 2,
                    cv2.LINE_AA)
    return img


#: a point lamp's light, h^3 / (r^2 + h^2)^1.5, is half its peak at r = 0.766 h
HALF_LIGHT = float(np.sqrt(2.0 ** (2.0 / 3.0) - 1.0))


def _draw_lamps(img: np.ndarray, calib: Calibration) -> None:
    try:
        lamps = lamps_from_records(calib.photometry.get("lamps") or [])
    except ValueError:
        return  # a damaged entry: the meter itself says so
    h_img, w_img = img.shape[:2]
    colour = (0, 215, 255)
    for k, (x, y, h) in enumerate(lamps):
        p = calib.table_to_image([(x, y)])[0]
        if not (np.isfinite(p).all() and 0 <= p[0] < w_img and 0 <= p[1] < h_img):
            continue
        a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
        ring = np.column_stack([x + HALF_LIGHT * h * np.cos(a), y + HALF_LIGHT * h * np.sin(a)])
        _polyline(img, calib.table_to_image(ring), colour, 1)
        c = (int(round(p[0])), int(round(p[1])))
        cv2.drawMarker(img, c, colour, cv2.MARKER_STAR, 22, 2, cv2.LINE_AA)
        text = f"lamp {k + 1}: {h:.0f} mm up"
        cv2.putText(img, text, (c[0] + 14, c[1] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                    (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(img, text, (c[0] + 14, c[1] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                    colour, 1, cv2.LINE_AA)
