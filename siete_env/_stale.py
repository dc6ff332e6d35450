"""A compiled engine older than its source is not loaded.

``game.py``, ``encoding.py``, ``settle.py``, ``events.py`` and ``table.py`` are compiled by
mypyc at install. In an
editable install (``pip install -e .``) the compiled modules sit beside the sources, and
Python imports an extension module before a ``.py`` of the same name: after an edit to
one of the sources, without a reinstall, the old compiled code would run and the edit
would silently have no effect. ``siete_env/__init__.py`` calls ``use_source_if_stale``
before anything imports the engine: when a compiled module is older than its source it
warns (naming the fix) and loads the sources instead, so the edit is what runs.

A wheel install is left alone: either no ``.py`` lies beside the compiled module, or the
two were written by the same install (within ``TOLERANCE`` seconds of each other; an
installer writes the ``.py`` just after the ``.so`` of the same name).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import warnings

# import order: game imports settle, encoding imports game, events game, table events
COMPILED_MODULES = ("settle", "game", "encoding", "events", "table")
TOLERANCE = 2.0  # seconds: a source newer than its compiled module by more than this is an edit
FIX = "pip install -e . --no-deps"


class StaleCompiledModuleWarning(RuntimeWarning):
    """A compiled engine module is older than its source (an edit without a reinstall)."""


def _compiled_path(folder: str, name: str) -> str | None:
    """The extension module the import system would load for ``name`` (its first suffix found)."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(folder, name + suffix)
        if os.path.exists(path):
            return path
    return None


def stale_modules(folder: str, names: tuple[str, ...] = COMPILED_MODULES) -> list[str]:
    """The modules of ``names`` whose compiled file in ``folder`` is older than the ``.py`` beside it."""
    out = []
    for name in names:
        src, so = os.path.join(folder, name + ".py"), _compiled_path(folder, name)
        if so is None or not os.path.exists(src):
            continue
        if os.path.getmtime(src) > os.path.getmtime(so) + TOLERANCE:
            out.append(name)
    return out


def use_source_if_stale(package: str, folder: str, names: tuple[str, ...] = COMPILED_MODULES) -> list[str]:
    """When a compiled module of ``package`` (its directory: ``folder``) is stale, warn and
    import the pure-Python sources of all of ``names`` in their place (a compiled module
    calls the others of its build natively: they are replaced together). Returns the stale
    modules (empty: nothing done)."""
    stale = stale_modules(folder, names)
    if not stale:
        return []
    files = ", ".join(f"{n}.py" for n in stale)
    if not all(os.path.exists(os.path.join(folder, n + ".py")) for n in names) or any(
        f"{package}.{n}" in sys.modules for n in names
    ):
        warnings.warn(
            f"{package}: the compiled engine is older than {files} (edited after the install) and the "
            f"pure-Python modules cannot replace it: the edit does NOT run. Reinstall: {FIX}",
            StaleCompiledModuleWarning,
            stacklevel=3,
        )
        return stale
    warnings.warn(
        f"{package}: the compiled engine is older than {files} (edited after the install); using the "
        f"pure-Python engine instead (slower). Rebuild it: {FIX}",
        StaleCompiledModuleWarning,
        stacklevel=3,
    )
    for name in names:
        full = f"{package}.{name}"
        spec = importlib.util.spec_from_file_location(full, os.path.join(folder, name + ".py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[full]
            raise
        setattr(sys.modules[package], name, module)
    return stale
