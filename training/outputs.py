"""Output files of the command-line tools (``evaluate.py``; a run folder's JSON): checked
before the work, written atomically, never lost.

``check_output_file`` refuses, naming the flag, a path that could not be written: its
folder missing or read-only, a folder in its place, or something that is not a regular
file (a device, a pipe); a symbolic link is written through (its target is checked and
written). ``check_distinct`` refuses two outputs that are one file, or an output that is
one of the inputs. ``write_atomic`` writes a temporary file in the same folder and renames
it over the target, so an interruption or a full disk never leaves half a file (nor
replaces a link by a file). ``save_output`` is what the tools call after the work: if the
write fails, the results go to a file in the temporary folder (JSON and CSV are also
printed when even that fails) and it says where, so that finished work is never lost.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from siete_env.rules import cut

Writer = Callable[[IO[bytes]], Any]


def real_path(path: str | Path) -> Path:
    """``path`` with every symbolic link followed (where a write through it lands)."""
    return Path(os.path.realpath(path))


def check_output_file(path: Path | None, flag: str, make_folder: bool = False, suffix: str | None = None) -> None:
    """Refuse, before any work, an output file that could not be written, naming the flag.
    ``make_folder``: its folder will be created, so it only needs to be creatable;
    ``suffix``: the file name must end with it (e.g. ``.npz``)."""
    if path is None:
        return
    if suffix is not None and path.suffix != suffix:
        raise ValueError(f"{flag} {path}: the file name must end in {suffix}")
    try:
        _check_output_file(path, flag, make_folder)
    except OSError as e:  # a path the system refuses to look at (too long, a loop of links, ...)
        raise ValueError(cut(f"{flag} {path}: {e.strerror or e}", 600)) from None
    except ValueError as e:  # a path of thousands of characters is not repeated whole
        raise ValueError(cut(str(e), 600)) from None


def _check_output_file(path: Path, flag: str, make_folder: bool) -> None:
    for name in (path.name, real_path(path).name):
        if len(name.encode()) > 200:  # the temporary file beside it adds a few characters to the name
            raise ValueError(f"{flag} {path}: a file name of {len(name.encode())} bytes; at most 200")
    real = real_path(path)
    if real.is_dir():
        raise ValueError(f"{flag} {path}: is a folder; give a file path")
    if real.exists() and not stat.S_ISREG(real.stat().st_mode):
        raise ValueError(
            f"{flag} {path}: {real} is not a regular file (a device, a pipe or a socket); give a file path"
        )
    if make_folder:
        return check_output_folder(real.parent, flag, shown=path)
    parent = real.parent
    if not parent.exists():
        raise ValueError(f"{flag} {path}: the folder {parent} does not exist")
    if not parent.is_dir():
        raise ValueError(f"{flag} {path}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK) or (real.exists() and not os.access(real, os.W_OK)):
        raise ValueError(f"{flag} {path}: not writable")


def check_output_folder(path: Path | None, flag: str, shown: Path | None = None) -> None:
    """Refuse an output folder that could not be created or written, naming the flag."""
    if path is None:
        return
    p = real_path(path)
    while not p.exists() and p != p.parent:  # the nearest existing ancestor
        p = p.parent
    if not p.is_dir():
        raise ValueError(f"{flag} {shown or path}: {p} is not a folder")
    if not os.access(p, os.W_OK | os.X_OK):
        raise ValueError(f"{flag} {shown or path}: {p} is not writable")


def check_distinct(outputs: dict[str, Path | None], inputs: dict[str, Path | None] | None = None) -> None:
    """Refuse two outputs that are the same file, or an output that is an input (the
    names are the flags or specs shown in the error), links followed."""
    seen: dict[Path, str] = {}
    for flag, path in outputs.items():
        if path is None:
            continue
        real = real_path(path)
        if real in seen:
            raise ValueError(f"{seen[real]} and {flag} name the same file ({path}): give each its own")
        seen[real] = flag
    for name, path in (inputs or {}).items():
        if path is None:
            continue
        real = real_path(path)
        if real in seen:
            raise ValueError(f"{seen[real]} {path}: that is the input {name}; write the results elsewhere")


def _mode_for_new_file() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(path: str | Path, data: str | bytes | Writer) -> None:
    """Write ``data`` (text, bytes, or a function writing to a binary file) to ``path``
    through a temporary file in the same folder renamed over it: ``path`` is either its
    old content or the whole new one. A symbolic link is written through (its target is
    replaced, the link kept); the file keeps its permissions (a new one: the umask's)."""
    real = real_path(path)
    fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, str):
                f.write(data.encode("utf-8"))
            elif isinstance(data, bytes):
                f.write(data)
            else:
                data(f)
            f.flush()
            os.fsync(f.fileno())
        mode = stat.S_IMODE(real.stat().st_mode) if real.exists() else _mode_for_new_file()
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def save_output(path: Path, flag: str, data: str | bytes | Writer) -> Path | None:
    """``write_atomic(path, data)`` after the work. If it fails, the error is printed and
    the results are saved to a new file in the temporary folder instead (and, for text,
    printed when even that fails): returns where they are (``path``, the fallback file) or
    None (printed only, or lost: binary data nowhere to go). The caller exits non-zero
    unless ``path`` is returned."""
    try:
        write_atomic(path, data)
        return path
    except OSError as e:
        print(f"error: {flag} {path}: could not write it ({e.strerror or e})", file=sys.stderr)
    try:
        fd, fallback = tempfile.mkstemp(prefix=f"siete-{path.stem}-", suffix=path.suffix or ".out")
        os.close(fd)
        write_atomic(fallback, data)
        print(f"error: the {flag} results were saved to {fallback} instead", file=sys.stderr)
        return Path(fallback)
    except OSError as e:
        print(f"error: nor could they be saved in the temporary folder ({e.strerror or e})", file=sys.stderr)
    if isinstance(data, str):
        print(f"the {flag} results, here instead:", file=sys.stderr)
        print(data)
    return None


__all__ = ["check_distinct", "check_output_file", "check_output_folder", "real_path", "save_output", "write_atomic"]
