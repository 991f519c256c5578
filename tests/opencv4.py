"""OpenCV 4's names for the iterative undistortion, on whatever release is installed.

OpenCV 4 takes the stopping criteria only in ``undistortPointsIter``, and its
``undistortPoints`` refuses them; OpenCV 5 folded the criteria into ``undistortPoints``
and dropped ``undistortPointsIter``. cueref runs on both (pyproject.toml), the tests on
5.0: :func:`as_opencv4` makes the installed release answer as 4 would."""

from __future__ import annotations

import cv2


def as_opencv4(monkeypatch) -> None:
    """Give ``cv2`` OpenCV 4's undistortion names (nothing to do on OpenCV 4)."""
    if hasattr(cv2, "undistortPointsIter"):
        return
    real = cv2.undistortPoints

    def undistort_points_iter(src, K, dist, R, P, criteria):
        return real(src, K, dist, None, R, P, criteria)

    def undistort_points(src, K, dist, *rest):  # dst, R, P: no criteria in 4
        if len(rest) > 3:
            raise cv2.error(f"undistortPoints() takes at most 6 arguments ({3 + len(rest)} "
                            "given)")
        return real(src, K, dist, *rest)

    monkeypatch.setattr(cv2, "undistortPointsIter", undistort_points_iter, raising=False)
    monkeypatch.setattr(cv2, "undistortPoints", undistort_points)
