"""The main job: referee a video, stage by stage, into one output folder.

frames -> calibration (+ light meter) -> [vision -> tracking] -> events -> adjudicate
-> calls and a short report. Until the detector and the tracker land, the table events
come from an events file given by the caller (for the sample videos: the simulator's
ground truth beside the clip); everything cueref measures on the video itself — the
calibration, its re-checks, the light — is measured, never read from the truth.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicate import ShotCall, Warning, adjudicate_stream, get_game
from calibration import calibrate, draw_debug, read_frames, video_events
from calibration.lens import Lens
from calibration.light import LightMeter
from equipment.files import atomic_path, atomic_write_text, check_writable
from tracking.events import Event, read_events, write_events


@dataclass
class RefereeResult:
    """What one run produced: the files written and the records in them."""

    outdir: Path
    files: dict[str, Path]
    calls: list[ShotCall] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)


def _say(progress: Callable[[str], None] | None, msg: str) -> None:
    if progress is not None:
        progress(msg)


def merge_events(table_events: list[Event], observations: list[Event]) -> list[Event]:
    """One stream in time order; at equal times observations come first."""
    tagged = [(e.t, 0, i, e) for i, e in enumerate(observations)]
    tagged += [(e.t, 1, i, e) for i, e in enumerate(table_events)]
    return [e for *_, e in sorted(tagged, key=lambda k: k[:3])]


def referee_video(video: str | os.PathLike, game: str, outdir: str | os.PathLike,
                  events: str | os.PathLike, table: str | None = None,
                  match: dict[str, Any] | None = None, lux: float | None = None,
                  check_every_s: float = 1.0, camera_height: float | None = None,
                  gamma: float | None = None, lens: Lens | None = None,
                  progress: Callable[[str], None] | None = None) -> RefereeResult:
    """Referee ``video`` as ``game``; write calib.json, calib.png, events.jsonl and
    calls.jsonl into ``outdir``. ``camera_height``: the lens's height above the cloth
    (mm), measured at installation; ``lens``: the lens measured with a checkerboard
    (``cueref lens``); ``gamma``: the camera's output curve (power law; None: sRGB).
    ``lux`` is one lux-meter reading of the mean over the cloth at the start (the
    photometric calibration of a fixed-exposure camera)."""
    rules = get_game(game)  # unknown game: fails before any work
    src = Path(video)
    if not src.is_file():
        raise FileNotFoundError(f"video {src} does not exist")
    # What the camera measures (light, calibration) is measured here, not taken over.
    table_events = [e for e in read_events(events)
                    if e.type not in ("light", "calibration", "unobservable")]
    out = Path(outdir)
    if not out.exists():
        check_writable(out)  # the parent must exist and be writable
        out.mkdir()
    files = {name: out / name for name in
             ("calib.json", "calib.png", "events.jsonl", "calls.jsonl")}
    for p in files.values():
        check_writable(p)
    profile = table or rules_table(game)

    _say(progress, f"calibrating on the first seconds of {src} ...")
    height = {} if camera_height is None else {"camera_height": camera_height}
    calib = calibrate(src, profile, strict=False, lens=lens, **height)
    _, _, first = next(read_frames(src))
    import cv2

    def save_calibration() -> None:
        with atomic_path(files["calib.png"]) as tmp:
            cv2.imwrite(str(tmp), draw_debug(first, calib))
        calib.save(files["calib.json"])

    save_calibration()
    q = calib.quality
    _say(progress, f"  {calib.table}: predicted max error "
         f"{q.get('predicted_max_error_mm') or '-'} mm, "
         f"{'trusted' if calib.ok else 'NOT trusted'}")

    _say(progress, "checking the calibration and metering the light over the video ...")
    meter = LightMeter(calib, gamma=gamma)
    observations = video_events(src, calib, check_every_s=check_every_s, meter=meter,
                                reference_lux=lux)
    _say(progress, f"  {len(observations)} calibration/light records")
    save_calibration()  # again, with what the meter found: its scale and the lamps

    stream = merge_events(table_events, observations)
    write_events(files["events.jsonl"], stream)
    _say(progress, f"adjudicating {sum(e.type == 'shot_start' for e in stream)} shot(s) "
         f"as {rules.title} ...")
    result = RefereeResult(out, files)
    lines = []
    for rec in adjudicate_stream(stream, rules, match or {}):
        (result.calls if isinstance(rec, ShotCall) else result.warnings).append(rec)
        lines.append(rec.to_json())
    atomic_write_text(files["calls.jsonl"], "".join(line + "\n" for line in lines))
    return result


def rules_table(game: str) -> str:
    from equipment import get_discipline

    return get_discipline(game).table_name


def report_lines(result: RefereeResult) -> list[str]:
    """A few lines a referee reads at a glance: one per call and per warning."""
    out = []
    records: list[tuple[float, str]] = []
    for c in result.calls:
        pts = ", ".join(f"{p} +{n}" for p, n in c.points.items() if n) or "no points"
        fouls = "; ".join(f"{f.code} ({f.article})" for f in c.fouls)
        score = " - ".join(f"{p} {s}" for p, s in c.score.items())
        line = f"shot {c.shot} at {c.t:6.2f} s  {c.player} ({c.ball}): {pts}"
        if fouls:
            line += f"; FOUL {fouls}"
        line += f"; next {c.next_player}; score {score}"
        records.append((c.t, line))
    for w in result.warnings:
        art = f" [{w.article}]" if w.article else ""
        records.append((w.t, f"WARNING at {w.t:6.2f} s  {w.message}{art}"))
    for _, line in sorted(records, key=lambda r: r[0]):
        out.append(line)
    return out


def print_report(result: RefereeResult, stream=sys.stdout) -> None:
    for line in report_lines(result):
        print(line, file=stream)
    print("files: " + ", ".join(str(p) for p in result.files.values()), file=stream)
