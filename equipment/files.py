"""File helpers every stage shares: early checks of output paths and atomic writes.

A file under its final name is always complete: writers write to a temporary file
beside it and rename it into place, so a stopped run leaves nothing half-written
under the final name.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


class OutputError(OSError):
    """An output path that cannot be written."""


def check_writable(path: str | os.PathLike) -> Path:
    """Fail before any work starts when ``path`` cannot be written."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise OutputError(f"output {p} is a directory, not a file")
    if not parent.exists():
        raise OutputError(f"cannot write {p}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"cannot write {p}: folder {parent} is not writable")
    if p.exists() and not os.access(p, os.W_OK):
        raise OutputError(f"cannot write {p}: file is read-only")
    return p


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it to ``path`` on success only."""
    final = check_writable(path)
    sfx = final.suffix if suffix is None else suffix
    fd, tmp = tempfile.mkstemp(prefix=f".{final.name}.", suffix=f".part{sfx}",
                               dir=final.parent if str(final.parent) else ".")
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, final)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def read_json(path: str | os.PathLike, what: str, error: type[ValueError] = ValueError):
    """The JSON document at ``path``; a missing or unreadable file is one clear error
    naming ``what`` it should have been (``error`` is the exception raised for bad JSON)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{what} file {p} does not exist")
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise error(f"{p}: not a valid JSON {what} file ({exc})") from None
