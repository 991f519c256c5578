"""The public entry points: film a layout (``render_still``) or a trajectory
(``render_video``), with exact per-frame truth."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from equipment import Discipline, get_discipline
from equipment.files import atomic_path, atomic_write_text, check_writable
from tracking import STATES, Stroke, Trajectory
from tracking.trajectory import run_lengths

from .camera import Camera, check_size, default_camera, random_camera
from .look import Look, random_look
from .renderer import ActiveStroke, ClipRenderer, ObjectPose
from .truth import TRUTH_FORMAT, FrameTruth

FPS_RANGE = (25.0, 60.0)
_STILL_CACHE: dict = {}


def _identity() -> np.ndarray:
    return np.eye(3)


def _random_orientation(rng: np.random.Generator) -> np.ndarray:
    q = rng.standard_normal(4)
    q /= np.linalg.norm(q)
    a, b, c, d = q
    return np.array([[a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)],
                     [2 * (b * c + a * d), a * a - b * b + c * c - d * d, 2 * (c * d - a * b)],
                     [2 * (b * d - a * c), 2 * (c * d + a * b), a * a - b * b - c * c + d * d]])


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    x, y, z = axis
    c, s, C = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


def _check_objects(discipline: Discipline, ids) -> None:
    known = set(discipline.object_ids)
    for oid in ids:
        if oid not in known:
            raise ValueError(f"object {oid!r} is not on a {discipline.name} table; known: "
                             f"{', '.join(discipline.object_ids)}")


def _camera_key(camera: Camera) -> tuple:
    return (np.asarray(camera.K, float).tobytes(), np.asarray(camera.dist, float).tobytes(),
            np.asarray(camera.rvec, float).tobytes(), np.asarray(camera.tvec, float).tobytes(),
            tuple(camera.size))


def _renderer(discipline: Discipline, camera: Camera, look: Look, seed: int) -> ClipRenderer:
    """A renderer for stills, reused while discipline, camera, look and seed stay the same."""
    key = (discipline.name, _camera_key(camera), look, seed)
    r = _STILL_CACHE.get(key)
    if r is None:
        _STILL_CACHE.clear()
        r = ClipRenderer(discipline, camera, look, seed)
        _STILL_CACHE[key] = r
    r.noise_rng = np.random.default_rng([seed, 2])
    r.exposure = look.exposure
    r._ae_started = False
    return r


def render_still(discipline: str | Discipline, layout: dict[str, tuple[float, float]],
                 camera: Camera | None = None, look: Look | None = None, seed: int = 0,
                 standing_pins: list[str] | None = None,
                 fallen_pins: dict[str, tuple[float, float, float]] | None = None,
                 stroke: Stroke | None = None, t: float = 0.0
                 ) -> tuple[np.ndarray, FrameTruth]:
    """One frame of balls at ``layout`` (id -> table mm) and pins.

    Pins: ``standing_pins`` (ids, at their castle places; default all of them) and
    ``fallen_pins`` (id -> (x, y, fall angle): the base and the direction it lies).
    ``stroke`` puts the player in the frame as at time ``t`` around that stroke (from
    1.4 s before to 0.7 s after ``stroke.t``): arms and cue hiding balls, for training.
    The static scene is cached, so many layouts through one camera and look are quick.
    """
    disc = get_discipline(discipline) if isinstance(discipline, str) else discipline
    _check_objects(disc, layout)
    camera = camera or default_camera(disc.table)
    look = look or Look.default()
    r = _renderer(disc, camera, look, seed)
    rng = np.random.default_rng([seed, 4])
    poses = []
    for oid, (x, y) in layout.items():
        spec = r.balls.get(oid)
        if spec is None:
            raise ValueError(f"{oid!r} is a pin: give pins with standing_pins/fallen_pins")
        centre = np.array([x, y, spec.radius], float)
        M = _random_orientation(rng)
        poses.append(ObjectPose(oid, "ball", "resting", True,
                                lambda _t, c=centre, m=M: (c, m), (x, y)))
    standing = [p.id for p in disc.pins] if standing_pins is None else list(standing_pins)
    fallen = fallen_pins or {}
    _check_objects(disc, standing)
    _check_objects(disc, fallen)
    for pin in disc.pins:
        if pin.id in fallen:
            x, y, a = fallen[pin.id]
            poses.append(ObjectPose(pin.id, "pin", "fallen", True,
                                    lambda _t: (np.zeros(3), _identity()), (x, y), False, a))
        elif pin.id in standing:
            poses.append(ObjectPose(pin.id, "pin", "standing", True,
                                    lambda _t: (np.zeros(3), _identity()), pin.position))
    strokes = []
    if stroke is not None:
        if stroke.ball not in layout:
            raise ValueError(f"stroke ball {stroke.ball!r} is not in the layout")
        strokes.append(ActiveStroke(stroke, tuple(layout[stroke.ball]),
                                    r.balls[stroke.ball].radius))
    image, truth = r.render(0, float(t), poses, strokes)
    if look.still_h264:
        image = h264_keyframe(image, look.crf)
    elif look.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(look.jpeg_quality)])
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return image, truth


#: FFmpeg's RGB to YUV conversion rounded accurately and its chroma taken from every
#: pixel: by default it rounds down, and a rendered grey of 128 came back from the
#: clip as (123, 126, 124), 3-5 levels darker and greener than rendered over the whole
#: range (a camera encodes its own YUV; the bias was the renderer's alone)
SWS_FLAGS = "accurate_rnd+full_chroma_int"


def h264_writer(path, size: tuple[int, int], fps: float, crf: int,
                extra: list[str] | None = None):
    """An ``imageio_ffmpeg`` generator writing BGR frames of ``size`` to an H.264 MP4 at
    ``path`` (x264 ``veryfast`` at ``crf``, yuv420p), already started: ``send`` each
    frame, then ``close``."""
    import imageio_ffmpeg

    writer = imageio_ffmpeg.write_frames(
        str(path), tuple(size), fps=fps, codec="libx264", pix_fmt_in="bgr24",
        pix_fmt_out="yuv420p", macro_block_size=1, ffmpeg_log_level="error",
        output_params=[*(extra or []), "-sws_flags", SWS_FLAGS, "-preset", "veryfast",
                       "-crf", str(int(crf))])
    writer.send(None)
    return writer


def h264_keyframe(image: np.ndarray, crf: int) -> np.ndarray:
    """``image`` (BGR) as a frame grabbed from an H.264 stream shows it: encoded as the
    keyframe of a clip at ``crf`` (x264 as :func:`render_video` writes, 4:2:0 chroma) and
    decoded as cueref reads videos (OpenCV). A keyframe is coded on its own: the frames
    between keyframes carry a static table's noise forward, averaged, so this is the
    stream's least faithful frame of a still scene."""
    import tempfile

    h, w = image.shape[:2]
    with tempfile.TemporaryDirectory(prefix="cueref-h264-") as tmp:
        path = str(Path(tmp) / "still.mp4")
        writer = h264_writer(path, (w, h), 25.0, crf)
        try:
            writer.send(np.ascontiguousarray(image))
        finally:
            writer.close()
        cap = cv2.VideoCapture(path)
        ok, frame = cap.read()
        cap.release()
    if not ok or frame is None or frame.shape != image.shape:
        raise RuntimeError(f"H.264 round trip of a {w}x{h} frame failed")
    return frame


# ---------------------------------------------------------------------- video

class TrajectorySampler:
    """Positions, states and rolling orientation of a trajectory at any time."""

    def __init__(self, traj: Trajectory, discipline: Discipline, seed: int):
        self.traj = traj
        self.disc = discipline
        radii = {b.id: b.radius for b in discipline.balls}
        rng = np.random.default_rng([seed, 5])
        n, m = traj.n_frames, len(traj.objects)
        self.radius = np.array([radii.get(o.id, 0.0) for o in traj.objects])
        self.orient = np.zeros((n, m, 3, 3))
        for j, obj in enumerate(traj.objects):
            M = _random_orientation(rng)
            self.orient[0, j] = M
            for k in range(1, n):
                d = traj.positions[k, j] - traj.positions[k - 1, j]
                dist = float(np.hypot(*d))
                if obj.kind == "ball" and dist > 1e-6 and self.radius[j] > 0:
                    axis = np.array([-d[1], d[0], 0.0]) / dist
                    M = _rotation(axis, dist / self.radius[j]) @ M
                self.orient[k, j] = M
        self.heights = traj.heights

    def _frame(self, t: float) -> tuple[int, int, float]:
        f = min(max(t * self.traj.fps, 0.0), self.traj.n_frames - 1)
        k0 = int(math.floor(f))
        k1 = min(k0 + 1, self.traj.n_frames - 1)
        return k0, k1, f - k0

    def centre(self, j: int, t: float) -> tuple[np.ndarray, np.ndarray]:
        k0, k1, a = self._frame(t)
        p = self.traj.positions
        xy = p[k0, j] * (1 - a) + p[k1, j] * a
        z = self.radius[j]
        if self.heights is not None:
            z += self.heights[k0, j] * (1 - a) + self.heights[k1, j] * a
        return np.array([xy[0], xy[1], z]), self.orient[k0 if a < 0.5 else k1, j]

    def state(self, j: int, t: float) -> tuple[str, bool]:
        k = int(round(min(max(t * self.traj.fps, 0), self.traj.n_frames - 1)))
        return STATES[int(self.traj.states[k, j])], bool(self.traj.visible[k, j])

    def poses(self, t: float) -> list[ObjectPose]:
        out = []
        for j, obj in enumerate(self.traj.objects):
            state, visible = self.state(j, t)
            c, _ = self.centre(j, t)
            if obj.kind == "pin":
                out.append(ObjectPose(obj.id, "pin", state, visible,
                                      lambda _t: (np.zeros(3), np.eye(3)), (c[0], c[1]),
                                      state == "standing", self.traj.pin_fall.get(obj.id, 0.0)))
            else:
                drawn = visible and state in ("resting", "moving")
                out.append(ObjectPose(obj.id, "ball", state, drawn,
                                      lambda s, j=j: self.centre(j, s), (c[0], c[1])))
        return out


def check_fps(fps: float) -> float:
    fps = float(fps)
    if not (FPS_RANGE[0] <= fps <= FPS_RANGE[1]):
        raise ValueError(f"frame rate {fps:g} is out of range: supported "
                         f"{FPS_RANGE[0]:g} to {FPS_RANGE[1]:g} fps")
    return fps


def truth_path(video: str | os.PathLike) -> Path:
    p = Path(video)
    name = p.name[:-4] if p.name.lower().endswith(".mp4") else p.stem
    return p.with_name(name + ".truth.json")


def _check_trajectory(traj: Trajectory) -> Discipline:
    disc = get_discipline(traj.discipline)
    if traj.table != disc.table_name:
        raise ValueError(f"trajectory table {traj.table!r} is not the {disc.name} table "
                         f"{disc.table_name!r}")
    known = set(disc.object_ids)
    for o in traj.objects:
        if o.id not in known:
            raise ValueError(f"trajectory names {o.id!r}, which a {disc.name} table does not "
                             f"have; known: {', '.join(disc.object_ids)}")
    return disc


def render_video(trajectory: Trajectory, path: str | os.PathLike, camera: Camera | None = None,
                 look: Look | None = None, seed: int = 0, fps: float | None = None,
                 progress: Callable[[int, int], None] | None = None) -> Path:
    """Film ``trajectory`` into an H.264 MP4 at ``path``; returns the truth JSON's path.

    Everything that can be wrong (objects, resolution, frame rate, output folder) is
    checked before the first frame; the video and the truth appear under their final
    names only when complete.
    """
    disc = _check_trajectory(trajectory)
    fps = check_fps(fps if fps is not None else min(max(trajectory.fps, 25.0), 60.0))
    camera = camera or default_camera(disc.table)
    check_size(camera.size)
    look = (look or Look.default()).check()
    out = Path(path)
    if out.suffix.lower() != ".mp4":
        raise ValueError(f"output {out} must end in .mp4 (H.264 MP4 video)")
    check_writable(out)
    tpath = truth_path(out)
    check_writable(tpath)

    last_t = (trajectory.n_frames - 1) / trajectory.fps
    n_frames = int(math.floor(last_t * fps + 1e-9)) + 1
    renderer = ClipRenderer(disc, camera, look, seed)
    sampler = TrajectorySampler(trajectory, disc, seed)
    radii = {b.id: b.radius for b in disc.balls}
    strokes = []
    for s in trajectory.strokes if look.player else ():
        j = trajectory.index(s.ball)
        c, _ = sampler.centre(j, s.t)
        strokes.append(ActiveStroke(s, (float(c[0]), float(c[1])), radii.get(s.ball, 30.0)))
    w, h = camera.size
    frames_truth: list[FrameTruth] = []
    with atomic_path(out, suffix=".mp4") as tmp:
        writer = h264_writer(tmp, (w, h), fps, look.crf, ["-movflags", "+faststart"])
        try:
            for k in range(n_frames):
                t = k / fps
                image, truth = renderer.render(k, t, sampler.poses(t), strokes)
                writer.send(np.ascontiguousarray(image))
                frames_truth.append(truth)
                if progress is not None:
                    progress(k + 1, n_frames)
        finally:
            writer.close()
    doc = truth_document(trajectory, disc, camera, look, seed, fps, frames_truth, renderer,
                         out.name)
    atomic_write_text(tpath, json.dumps(doc, separators=(",", ":")))
    for f in (out, tpath):  # temporary files are private; finished ones are ordinary files
        os.chmod(f, 0o644)
    return tpath


def truth_document(traj: Trajectory, disc: Discipline, camera: Camera, look: Look, seed: int,
                   fps: float, frames: list[FrameTruth], renderer: ClipRenderer,
                   video_name: str) -> dict:
    """The clip's truth file (format in docs/renderer.md)."""
    table = disc.table
    lamp_runs = run_lengths([f.lamps_on for f in frames])
    lux_states = []
    for i, (start, on) in enumerate(lamp_runs):
        end = lamp_runs[i + 1][0] - 1 if i + 1 < len(lamp_runs) else len(frames) - 1
        grid = renderer.lux(on)
        lux_states.append({"frames": [start, end], "lamps_on": list(on),
                           "lux": np.round(grid["lux"], 1).tolist(),
                           "min_lux": round(float(grid["lux"].min()), 1),
                           "mean_lux": round(float(grid["lux"].mean()), 1)})
    grid = renderer.lux(lamp_runs[0][1])
    objects = {}
    for obj in traj.objects:
        ot = [f.objects[obj.id] for f in frames]
        objects[obj.id] = {
            "kind": obj.kind,
            "diameter": obj.diameter,
            "centre": [[round(o.centre[0], 2), round(o.centre[1], 2)] for o in ot],
            "box": [None if o.box is None else [round(v, 1) for v in o.box] for o in ot],
            "visible": [round(o.visible, 3) for o in ot],
            "state": run_lengths([o.state for o in ot]),
        }
    diamonds = camera.project(np.array([[x, y, table.rail_top_height]
                                        for x, y in table.diamonds]))
    landmarks = table_landmarks(table)
    landmarks_px = {k: np.round(camera.project(v), 2).tolist() for k, v in landmarks.items()}
    return {
        "format": TRUTH_FORMAT,
        "video": video_name,
        "discipline": disc.name,
        "table": table.name,
        "fps": fps,
        "n_frames": len(frames),
        "size": list(camera.size),
        "seed": seed,
        "camera": camera.to_dict(),
        "diamonds_px": np.round(diamonds, 2).tolist(),
        "landmarks_px": landmarks_px,
        "exposure": {
            "mode": "auto" if look.auto_exposure else "fixed",
            "sensitivity": look.sensitivity,
            "gain": look.gain,
            "vignette": look.vignette,
            "exposure_s": [round(f.exposure, 7) for f in frames] if look.auto_exposure
            else round(look.exposure, 7),
        },
        "lamps": [{"position_mm": [round(float(v), 1) for v in g.centre],
                   "intensity_cd": lp.intensity, "size_mm": lp.size, "off_at": lp.off_at,
                   "on_at": lp.on_at, "flicker": lp.flicker}
                  for g, lp in zip(renderer.scene.lamps, look.lamps, strict=True)],
        "lux_grid": {"x_mm": np.round(grid["x"], 2).tolist(),
                     "y_mm": np.round(grid["y"], 2).tolist(),
                     "cell_mm": [round(v, 2) for v in grid["cell"]],
                     "ambient_lux": look.ambient_lux},
        "lux": lux_states,
        "occluders": {"player": run_lengths(["player" in f.occluders for f in frames]),
                      "graphics": bool(look.graphics)},
        "look": look.to_dict(),
        "trajectory_fps": traj.fps,
        "objects": objects,
    }


def table_landmarks(table) -> dict[str, np.ndarray]:
    """3D points (mm) a calibration can find: corners of the cloth (z = 0), of the
    cushion noses (at nose height), of the rails' outer edge (rail top), the spots, the
    pocket holes' centres (cloth level)."""
    L, W, r = table.length, table.width, table.rail_width
    corners = np.array([[0, 0], [L, 0], [L, W], [0, W]], float)
    outer = np.array([[-r, -r], [L + r, -r], [L + r, W + r], [-r, W + r]], float)

    def at(xy: np.ndarray, z: float) -> np.ndarray:
        return np.column_stack([xy, np.full(len(xy), z)])

    out = {"cloth_corners": at(corners, 0.0),
           "nose_corners": at(corners, table.cushion_height),
           "rail_outer_corners": at(outer, table.rail_top_height),
           "spots": at(np.array(list(table.spots.values()), float), 0.0)}
    if table.pockets:
        from .scene import pocket_holes

        out["pockets"] = at(np.array([c for c, _ in pocket_holes(table)], float), 0.0)
    return out


def sights_as_drawn(discipline: str | Discipline, camera: Camera, look: Look, seed: int
                    ) -> np.ndarray:
    """Where the renderer inlaid each of the table's diamonds (``(N, 2)`` mm on the rail
    tops, in ``table.diamonds``' order): the drawing's places off by the look's build
    tolerance. A calibration's found sights are measured against these; its mapping
    against the drawing, as a referee's calls are. The scene is the one
    :func:`render_still` draws for the same arguments: called right after it, its
    cached scene is read; otherwise the scene is built again."""
    disc = get_discipline(discipline) if isinstance(discipline, str) else discipline
    return _renderer(disc, camera, look, seed).scene.sights.copy()


def random_setup(discipline: Discipline, seed: int, size: tuple[int, int] = (1280, 720)
                 ) -> tuple[Camera, Look]:
    """A random camera and look from one seed (``--random-look``)."""
    rng = np.random.default_rng([seed, 0xCA])
    return random_camera(discipline.table, rng, size), random_look(seed)


#: where the balls of a calibration scene lie (:func:`calibration_scene`)
BALL_LAYOUTS = ("opening", "random")


def scene_discipline(seed: int) -> str:
    """The discipline of benchmark scene ``seed`` (:func:`calibration_scene`,
    :func:`broadcast_scene`): each in turn, by name. A benchmark of one discipline's
    scenes picks its seeds without rendering the rest."""
    from equipment import DISCIPLINES

    names = sorted(DISCIPLINES)
    return names[seed % len(names)]


def calibration_scene(seed: int, max_tilt: float = 20.0, balls: str = "opening",
                      look_changes: dict | None = None
                      ) -> tuple[Discipline, Camera, Look, np.ndarray, FrameTruth]:
    """Scene ``seed`` of the calibration benchmark (bench/bench_calibration.py): a
    discipline in turn, a random camera up to ``max_tilt`` degrees off vertical at
    1280x720 or 1920x1080 and a random look; every fourth scene (``seed % 4 == 3``) a
    dim hall, its lamps at 30-60%, so that part of the cloth is under 520 lux. Tests
    draw the same scenes as the benchmark from here.

    ``balls``: ``opening``, the discipline's opening position (the balls on the spots
    that would show a near-vertical camera's height), or ``random``, a plausible
    mid-game position (:func:`simworld.scenes.random_layout`) in the same scene: the
    camera, look and occluders are the opening scene's.

    ``look_changes``: fields of the look to replace (the same scene without noise, or
    without JPEG: what a diagnosis compares against)."""
    from dataclasses import replace

    from equipment import DISCIPLINES

    if balls not in BALL_LAYOUTS:
        raise ValueError(f"unknown ball layout {balls!r}; known: {', '.join(BALL_LAYOUTS)}")
    disc = DISCIPLINES[scene_discipline(seed)]
    rng = np.random.default_rng([seed, 77])
    size = [(1280, 720), (1920, 1080)][int(rng.integers(2))]
    cam = random_camera(disc.table, rng, size=size, max_tilt_deg=max_tilt)
    look = random_look(seed)
    if seed % 4 == 3:
        k = float(rng.uniform(0.3, 0.6))
        look = replace(look, lamps=tuple(replace(lp, intensity=lp.intensity * k)
                                         for lp in look.lamps))
    if look_changes:
        look = replace(look, **look_changes)
    if balls == "random":
        from ..scenes import random_layout

        layout = random_layout(disc.name, np.random.default_rng([seed, 78]))
    else:
        layout = dict(disc.opening)
    img, truth = render_still(disc, layout, camera=cam, look=look, seed=seed)
    return disc, cam, look, img, truth


#: what a broadcast shows besides a club camera's whole-table view
#: (:func:`broadcast_scene`)
BROADCAST_KINDS = ("snug", "tight", "close", "side", "wide")


def broadcast_scene(kind: str, seed: int
                    ) -> tuple[Discipline, Camera, Look, np.ndarray, FrameTruth]:
    """Scene ``seed`` of one kind of broadcast framing (bench/bench_broadcast.py):

    * ``snug``: overhead up to 20 degrees, the rails' outer edges at or just past the
      frame (the cloth whole);
    * ``tight``: overhead up to 15 degrees, framed 1-7% tighter still (the rails cut,
      often a cushion or a corner of the cloth too);
    * ``close``: a close-up of part of the table (up to 30 degrees);
    * ``side``: a low camera 40-75 degrees off vertical;
    * ``wide``: overhead up to 20 degrees, the table small in the frame (12-30% of it
      left around the rails: a wide shot, or a club camera hung high).

    A discipline in turn, its opening balls, 1920x1080 for even seeds and 1280x720
    for odd ones, a random lens (its principal point off the centre as
    :func:`random_camera`'s) and look."""
    from equipment import DISCIPLINES

    from .camera import make_camera, random_principal_offset

    if kind not in BROADCAST_KINDS:
        raise ValueError(f"unknown broadcast framing {kind!r}; known: "
                         f"{', '.join(BROADCAST_KINDS)}")
    disc = DISCIPLINES[scene_discipline(seed)]
    t = disc.table
    rng = np.random.default_rng([seed, 991])
    size = (1280, 720) if seed % 2 else (1920, 1080)
    principal = random_principal_offset(rng, size[0])
    lens = dict(azimuth_deg=float(rng.uniform(0, 360)), roll_deg=float(rng.uniform(-4, 4)),
                hfov_deg=float(rng.uniform(50, 78)), k1=float(rng.uniform(-0.2, 0.0)),
                flip=bool(rng.random() < 0.5),
                principal_offset=principal)
    if kind == "snug":
        cam = make_camera(t, size, tilt_deg=float(rng.uniform(0, 20)),
                          margin=float(rng.uniform(-0.035, 0.0)), **lens)
    elif kind == "tight":
        cam = make_camera(t, size, tilt_deg=float(rng.uniform(0, 15)),
                          margin=float(rng.uniform(-0.07, -0.01)), **lens)
    elif kind == "close":
        cam = make_camera(t, size, tilt_deg=float(rng.uniform(0, 30)),
                          margin=float(rng.uniform(-1.5, -0.6)),
                          target_offset=(float(rng.uniform(-0.35, 0.35) * t.length),
                                         float(rng.uniform(-0.3, 0.3) * t.width)), **lens)
    elif kind == "side":
        cam = make_camera(t, size, tilt_deg=float(rng.uniform(40, 75)),
                          margin=float(rng.uniform(-0.1, 0.1)), **lens)
    else:
        cam = make_camera(t, size, tilt_deg=float(rng.uniform(0, 20)),
                          margin=float(rng.uniform(0.12, 0.3)), **lens)
    look = random_look(seed)
    img, truth = render_still(disc, dict(disc.opening), camera=cam, look=look, seed=seed)
    return disc, cam, look, img, truth
