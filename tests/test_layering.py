"""The layering of the tree: the environment (``siete_env``) imports nothing from the
agents; no module imports another in a cycle; no ``_private`` name is imported from
another module; the single-seat views work without the agents package."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("siete_env", "agents", "training")
SCRIPTS = ("train.py", "train_rllib.py", "evaluate.py", "demo.py")


def _modules() -> dict[str, Path]:
    """The project's modules by dotted name."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    for script in SCRIPTS:
        out[script[:-3]] = ROOT / script
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, list[str]]]:
    """``(module imported, names imported from it)`` for every import in a module (at any
    depth: lazy imports count), resolved to the project's most specific module."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.append((sub, []) if sub in modules else (base, [a.name]))
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for target, _ in _imports(name, path, modules):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                graph[name].add(target)
    return graph


def test_the_environment_never_imports_the_agents():
    modules = _modules()
    for name, path in modules.items():
        if name.split(".")[0] != "siete_env":
            continue
        for target, _ in _imports(name, path, modules):
            assert target.split(".")[0] not in ("agents", "training", "train", "evaluate"), (name, target)


def test_no_import_cycle():
    """No two modules import each other, directly or through others (a package importing
    its own submodules, in ``__init__``, is the package's API, not a cycle)."""
    graph = _graph()
    for name in graph:  # a package's __init__ re-exporting its submodules
        graph[name] = {t for t in graph[name] if not t.startswith(name + ".")}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_no_private_name_is_imported_from_another_module():
    modules = _modules()
    found = []
    for name, path in modules.items():
        for target, names in _imports(name, path, modules):
            found += [f"{name}: from {target} import {n}" for n in names if n.startswith("_") and n != "__version__"]
    assert not found, found


def test_the_registered_ids_work_without_the_agents_package():
    """With ``agents`` not importable, the Gymnasium ids play their built-in default
    opponent ("random"), and a spec that needs the agents is refused, naming the fix."""
    code = (
        "import sys; sys.modules['agents'] = None\n"
        "import gymnasium, siete_env\n"
        "from siete_env.gym_env import SeatEnv\n"
        "e = gymnasium.make('SieteYMedia-Banker-v0')\n"
        "obs, info = e.reset(seed=0)\n"
        "obs, r, term, trunc, info = e.step(int(info['action_mask'].argmax()))\n"
        "try:\n"
        "    SeatEnv(opponents='smart:6')\n"
        "except ValueError as err:\n"
        "    print(err)\n"
        "assert not any(m == 'agents' or m.startswith('agents.') for m in sys.modules if sys.modules[m])\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "cannot resolve the agent spec 'smart:6'" in r.stdout and "pip install -e ." in r.stdout, r.stdout


# --------------------------------------------------------------------------- benchmarks/ and lab/
OUTSIDE = ("benchmarks", "lab")  # scripts over the product: they may import it, it may not import them


def _scripts(folder: str) -> dict[str, Path]:
    return {path.stem: path for path in sorted((ROOT / folder).glob("*.py"))}


def test_the_product_and_its_tests_never_import_benchmarks_or_lab():
    """Nothing in the packages, the scripts or the tests imports, runs or puts on ``sys.path``
    a file of ``benchmarks/`` or ``lab/``: those import the product, never the reverse."""
    outside = {name for folder in OUTSIDE for name in _scripts(folder)}
    modules = _modules()
    tests = {f"tests.{p.stem}": p for p in sorted((ROOT / "tests").glob("*.py"))}
    found = []
    for name, path in {**modules, **tests}.items():
        if path == Path(__file__).resolve():  # this test names the folders
            continue
        for target, _ in _imports(name, path, modules):
            top = target.split(".")[0]
            if top in OUTSIDE or (target in outside and target not in modules and top != "tests"):
                found.append(f"{name} imports {target}")
        text = path.read_text()
        found += [f"{name} names the folder {folder}/ (a path to run or import from it)" for folder in OUTSIDE
                  if f'"{folder}"' in text]  # fmt: skip
    assert not found, found


@pytest.mark.parametrize("folder", OUTSIDE)
def test_benchmarks_and_lab_use_only_the_products_public_names(folder):
    """A benchmark or a probe imports the product's public names only (no ``_private``):
    the product may change its insides without breaking them unseen."""
    modules = _modules()
    found = []
    for name, path in _scripts(folder).items():
        for target, names in _imports(f"{folder}.{name}", path, modules):
            if target.split(".")[0] in PACKAGES or target in modules:
                found += [f"{folder}/{name}.py: from {target} import {n}" for n in names if n.startswith("_")]
    assert not found, found


def test_lab_holds_the_research_probes_and_says_what_each_is():
    readme = (ROOT / "lab" / "README.md").read_text()
    for name in _scripts("lab"):
        assert f"`{name}.py`" in readme, name


def test_the_training_package_docstring_names_every_module():
    import training

    for path in sorted((ROOT / "training").glob("*.py")):
        if path.stem != "__init__":
            assert f"``training.{path.stem}``" in training.__doc__, path.stem
