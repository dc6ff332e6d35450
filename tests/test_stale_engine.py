"""A compiled engine module older than its source (an edit after ``pip install -e .``) is
replaced by the source with a warning naming the fix; a wheel install is left alone."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
import textwrap

import pytest

from siete_env._stale import COMPILED_MODULES, FIX, TOLERANCE, stale_modules

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
NAMES = COMPILED_MODULES


def _package(tmp_path, *, sources=True, so_age: float = 0.0, edited: str | None = None):
    """A package ``fakeeng`` laid out like siete_env: its compiled modules with (fake) compiled
    files beside them. The compiled files cannot load: importing one fails loudly."""
    pkg = tmp_path / "fakeeng"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        textwrap.dedent(
            """
            import os
            from siete_env._stale import use_source_if_stale
            STALE = use_source_if_stale(__name__, os.path.dirname(__file__))
            from . import encoding
            """
        )
    )
    body = {
        "settle": "WHO = 'settle.py'\n",
        "game": "from .settle import WHO\n",
        "encoding": "from .game import WHO\n",
        "events": "from .game import WHO\n",
        "table": "from .events import WHO\n",
    }
    now = 1_700_000_000.0
    for name in NAMES:
        so = pkg / (name + SUFFIX)
        so.write_bytes(b"not an extension module")
        os.utime(so, (now, now))
        if sources:
            src = pkg / (name + ".py")
            src.write_text(body[name])
            t = now + (so_age if name == edited else 0.0)
            os.utime(src, (t, t))
    return pkg


def _import(tmp_path) -> subprocess.CompletedProcess:
    code = "import fakeeng; print(fakeeng.STALE, fakeeng.encoding.WHO, fakeeng.encoding.__file__.endswith('.py'))"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize("edited", NAMES)
def test_an_edited_source_runs_instead_of_its_stale_compiled_module(tmp_path, edited):
    _package(tmp_path, so_age=60.0, edited=edited)
    out = _import(tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [f"['{edited}']", "settle.py", "True"]
    assert "StaleCompiledModuleWarning" in out.stderr and FIX in out.stderr and f"{edited}.py" in out.stderr


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sources": False},  # a wheel with only the compiled modules
        {},  # same times
        {"so_age": -30.0, "edited": "game"},  # the compiled module newer (a rebuild)
        {"so_age": TOLERANCE / 2, "edited": "game"},  # written by the same install, the .py just after
    ],
)
def test_a_fresh_install_is_left_alone(tmp_path, kwargs):
    pkg = _package(tmp_path, **kwargs)
    assert stale_modules(str(pkg)) == []


def test_the_installed_engine_is_not_stale():
    import siete_env

    folder = os.path.dirname(siete_env.__file__)
    assert stale_modules(folder) == [], f"reinstall: {FIX}"
