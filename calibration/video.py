"""Frames from an image or a video, calibration from the first seconds, and the
``calibration`` / ``light`` records the rules engine turns into warnings."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from tracking.events import Event, frame_of

from .check import check
from .detect import CalibrationError
from .fit import calibrate_image
from .light import LightMeter
from .result import Calibration

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


def _check_source(path: str | os.PathLike) -> Path:
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{p} does not exist")
    if p.is_dir():
        raise ValueError(f"{p} is a folder, not an image or a video")
    return p


def read_image(path: str | os.PathLike) -> np.ndarray:
    p = _check_source(path)
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError(f"cannot decode image {p}: not an image OpenCV can read")
    return img


def read_frames(path: str | os.PathLike, seconds: float | None = None,
                step_s: float = 0.0) -> Iterator[tuple[float, int, np.ndarray]]:
    """(t, frame index, BGR frame) of an image (t = 0) or a video, every ``step_s``."""
    p = _check_source(path)
    if p.suffix.lower() in IMAGE_SUFFIXES:
        yield 0.0, 0, read_image(p)
        return
    cap = cv2.VideoCapture(str(p))
    if not cap.isOpened():
        raise ValueError(f"cannot decode video {p}: no decoder opened it (not a video, "
                         "or a format this OpenCV build cannot read)")
    fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
    if not np.isfinite(fps) or fps <= 0:
        fps = 25.0
    k, next_t, got_any = 0, 0.0, False
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            got_any = True
            t = k / fps
            if seconds is not None and t > seconds:
                break
            if t + 1e-9 >= next_t:
                yield t, k, frame
                next_t = t + step_s
            k += 1
    finally:
        cap.release()
    if not got_any:
        raise ValueError(f"cannot decode video {p}: no frame could be read (empty or "
                         "corrupt file)")


def calibrate(source, table: str | None = None, corners=None, seconds: float = 3.0,
              tries: int = 4, strict: bool = True, **given) -> Calibration:
    """Calibrate from a BGR frame, an image file or the first ``seconds`` of a video.

    In a video, several frames are tried (a player may hide a rail in one) and the
    best-trusted result is kept. Raises :class:`CalibrationError` with the reason.
    ``given``: ``camera_height``, ``camera_height_sd`` and ``lens`` of
    :func:`calibrate_image`: what the frame cannot tell about the camera.
    """
    if isinstance(source, np.ndarray):
        return calibrate_image(source, table, corners, strict=strict, **given)
    frames = list(read_frames(source, seconds=seconds, step_s=max(seconds / tries, 0.04)))
    best, errors = None, []
    for _, _, frame in frames[:tries]:
        try:
            c = calibrate_image(frame, table, corners, strict=False, **given)
        except CalibrationError as exc:
            errors.append(str(exc))
            continue
        predicted = c.quality.get("predicted_max_error_mm")  # None: not estimated
        key = (c.ok, -(99.0 if predicted is None else predicted))
        if best is None or key > best[0]:
            best = (key, c)
        if c.ok and corners is None:
            break
    if best is None:
        raise CalibrationError(errors[0] if errors else f"no frame in {source}")
    if strict and not best[1].ok:
        raise CalibrationError("calibration not trusted: "
                               + "; ".join(best[1].quality.get("reasons", [])))
    return best[1]


def video_events(path, calib: Calibration | None = None, table: str | None = None,
                 check_every_s: float = 1.0, meter: LightMeter | None = None,
                 reference_lux: float | None = None, retry_every_s: float = 5.0,
                 gamma: float | None = None) -> list[Event]:
    """``calibration`` (ok / moved / lost / recalibrated / restored) and ``light``
    records.

    A calibration not trusted at the start (at the opening the balls hide the spots
    that pin a near-vertical camera's height) is tried again every ``retry_every_s``
    on a later frame, and a trusted one replaces it (``recalibrated``).

    The views are remembered. A broadcast cuts away from the table camera (a close-up,
    the players) and back: that stretch gives one ``lost`` (or ``moved``) record where
    it starts and one ``restored`` where a known view comes back (the one it left, or
    another table camera calibrated earlier), not a record and a recalibration at every
    check. While no known view matches, a recalibration is tried at once (a bumped
    camera) and then every ``retry_every_s`` (each try takes about a second). ``view``
    numbers the camera views in the order they were calibrated.

    ``light`` records are written at the start and whenever the light changes (a lamp
    failing), with ``status: auto_exposure`` once the camera is seen to chase its own
    exposure; each view keeps its own meter. ``reference_lux`` (one lux-meter reading
    of the mean over the cloth, taken at the start) gives the photometric scale when
    ``calib`` has none; ``gamma`` the camera's output curve (:class:`LightMeter`) when
    ``meter`` is not given.
    """
    events: list[Event] = []
    fps = _fps(path)
    if calib is None:
        calib = calibrate(path, table, strict=False)  # untrusted: tried again later
    views = [calib]
    meters = [meter or LightMeter(calib, gamma=gamma)]
    cur = 0

    def record(t: float, k: int, status: str, **extra) -> None:
        events.append(Event(t, "calibration", frame=frame_of(t, fps) if fps else k,
                            extra={"status": status, "view": cur, **extra}))

    record(0.0, 0, "ok" if calib.ok else "lost",
           quality_mm=calib.quality.get("predicted_max_error_mm"))
    said_ae = False
    last_try = 0.0
    away = False  # no known view matches the frames (a cut-away, a bumped camera)
    next_try = 0.0
    for t, k, frame in read_frames(path, step_s=check_every_s):
        if not views[cur].ok and not away and t - last_try >= retry_every_s - 1e-9:
            last_try = t
            better = _recalibrate(frame, views[cur])
            if better is not None:
                views[cur], meters[cur] = better, meters[cur].for_calibration(better)
                record(t, k, "recalibrated",
                       quality_mm=better.quality.get("predicted_max_error_mm"))
        res = check(frame, views[cur])
        if not res.ok:
            known = next((i for i, v in enumerate(views)
                          if i != cur and v.ok and check(frame, v).ok), None)
            if known is not None:  # another table camera, calibrated earlier
                cur, away = known, False
                record(t, k, "restored")
            else:
                if not away:
                    away, next_try = True, t
                    record(t, k, res.status, shift_mm=None if res.shift_mm is None
                           else round(res.shift_mm, 2))
                if t >= next_try - 1e-9:
                    next_try = t + retry_every_s
                    new = _recalibrate(frame, views[cur])
                    if new is not None:
                        views.append(new)
                        meters.append(meters[cur].for_calibration(new))
                        cur, away = len(views) - 1, False
                        record(t, k, "recalibrated",
                               quality_mm=new.quality.get("predicted_max_error_mm"))
                continue
        elif away:
            away = False
            record(t, k, "restored")
        meter = meters[cur]
        if k == 0 and reference_lux is not None and meter.lux_per_unit is None:
            meter.reference(frame, reference_lux)
        reading, changed = meter.observe(frame)
        if reading.status == "auto_exposure":
            if not said_ae:
                events.append(Event(t, "light", frame=k, extra=reading.record()))
                said_ae = True
            continue
        if k == 0 or changed:
            rec = reading.record()
            rec["changed"] = bool(changed)
            events.append(Event(t, "light", frame=k, extra=rec))
    return events


def _recalibrate(frame: np.ndarray, calib: Calibration) -> Calibration | None:
    """A trusted calibration of ``frame`` on ``calib``'s table (keeping its photometry
    and the camera height and lens it was given), or None."""
    try:
        new = calibrate_image(frame, calib.table, lens=calib.lens, **measured_height(calib))
    except CalibrationError:
        return None
    new.photometry = dict(calib.photometry)
    return new


def measured_height(calib: Calibration) -> dict:
    """The installer's camera height a calibration was given, for recalibrating."""
    given = calib.quality.get("camera_height_measured_mm")
    return {"camera_height": given[0], "camera_height_sd": given[1]} if given else {}


def _fps(path) -> float | None:
    p = Path(path)
    if p.suffix.lower() in IMAGE_SUFFIXES:
        return None
    cap = cv2.VideoCapture(str(p))
    fps = cap.get(cv2.CAP_PROP_FPS) if cap.isOpened() else 0.0
    cap.release()
    return fps if fps and np.isfinite(fps) and fps > 0 else None
