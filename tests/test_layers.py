"""The package reads as the pipeline: each stage imports only the stages below it.

Every import of every module of ``mahdiao_rules`` is checked — top-level, inside
functions and under ``TYPE_CHECKING`` alike — against :data:`LAYERS` (the order
``mahdiao_rules/__init__.py`` describes).  A module may import its own group and any
group of a lower layer; groups of one layer (``history`` and ``simulate``) do not import
each other.  :data:`FORBIDDEN` adds what the order alone allows but the design does not:
settlement takes a play result and never plays.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "mahdiao_rules"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE

LAYERS: list[tuple[str, ...]] = [
    ("mahdiao_rules",),  # the package itself: __version__, and the API exported lazily (LAZY_EXPORT)
    ("mahdiao_rules.errors",),
    ("mahdiao_rules.messages",),  # notes by message id, rendered per language by report/
    ("mahdiao_rules.units",),
    ("mahdiao_rules.cards",),
    ("mahdiao_rules.deal",),
    ("mahdiao_rules.io",),
    ("mahdiao_rules.ruleset",),
    ("mahdiao_rules.play",),
    ("mahdiao_rules.settle",),
    ("mahdiao_rules.pipeline",),
    # Sittings play hands through the pipeline; simulate plays random sittings with them.
    ("mahdiao_rules.sitting",),
    ("mahdiao_rules.history", "mahdiao_rules.simulate"),
    ("mahdiao_rules.report",),
    ("mahdiao_rules.api",),
    ("mahdiao_rules.cli",),
    ("mahdiao_rules.__main__",),
]
"""Lowest first; each entry is one layer, each name in it a group (a module or a subpackage)."""

FORBIDDEN: dict[str, tuple[str, ...]] = {
    # Settlement takes a play result: the trick engine's types, never a way to play.
    "mahdiao_rules.settle": (
        "mahdiao_rules.play.procedure",
        "mahdiao_rules.play.policies",
        "mahdiao_rules.play.tricks.play_random",
        "mahdiao_rules.play.tricks.replay_recorded",
    ),
}
"""Group → imports it must not make although a lower layer holds them (a module, or module.name)."""

LAZY_EXPORT = ("mahdiao_rules", "mahdiao_rules.api")
"""The one documented exception: the package root exports the Python API (``import
mahdiao_rules as md``) by importing ``api`` lazily — only inside its module-level
``__getattr__`` (run on first use) and under ``if TYPE_CHECKING:`` (never run).  Anywhere
else in the root, or of any other module, the import is a layering violation."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def group_of(module: str) -> tuple[int, str] | None:
    """(layer index, group) of *module*: the longest group name that is it or holds it."""
    best: tuple[int, str] | None = None
    for level, groups in enumerate(LAYERS):
        for g in groups:
            inside = module == g or (g != PACKAGE and module.startswith(g + "."))
            if inside and (best is None or len(g) > len(best[1])):
                best = (level, g)
    return best


def _lazy_places(tree: ast.Module) -> set[int]:
    """ids of the import nodes in the module-level ``def __getattr__`` or ``if TYPE_CHECKING:``."""
    out: set[int] = set()
    for top in tree.body:
        lazy = (isinstance(top, ast.FunctionDef) and top.name == "__getattr__") or (
            isinstance(top, ast.If) and isinstance(top.test, ast.Name) and top.test.id == "TYPE_CHECKING")
        if lazy:
            out.update(id(n) for n in ast.walk(top) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return out


def imports_of(module: str, path: Path, *, text: str | None = None) -> list[tuple[int, str, str]]:
    """(line, imported module, imported module.name or module) for every import of the package
    (the root's lazy API export excepted, see :data:`LAZY_EXPORT`)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    tree = ast.parse(text if text is not None else path.read_text(encoding="utf-8"), str(path))
    lazy = _lazy_places(tree) if module == LAZY_EXPORT[0] else set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, a.name) for a in node.names if a.name.split(".")[0] == PACKAGE]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != PACKAGE:
                continue
            for a in node.names:
                full = f"{source}.{a.name}"
                target = full if full in MODULES else source
                if id(node) in lazy and target == LAZY_EXPORT[1]:
                    continue
                out.append((node.lineno, target, full))
    return out


def violations(module: str, line: int, target: str, named: str) -> list[str]:
    """Why importing *target* (as *named*) from *module* breaks the layering (empty when it does not)."""
    where = f"{MODULES[module].relative_to(ROOT.parent)}:{line}" if module in MODULES else module
    mine, theirs = group_of(module), group_of(target)
    if mine is None or theirs is None:
        return [f"{where}: {module if mine is None else target} belongs to no layer of "
                "tests/test_layers.py LAYERS"]
    out = []
    if not (theirs[0] < mine[0] or theirs[1] == mine[1]):
        below = ", ".join(g for layer in LAYERS[: mine[0]] for g in layer) or "nothing"
        out.append(f"{where}: {module} imports {target}, which is not below it: {mine[1]} "
                   f"(layer {mine[0]}) may import only its own group and {below}")
    for bad in FORBIDDEN.get(mine[1], ()):
        if target == bad or named == bad or target.startswith(bad + "."):
            out.append(f"{where}: {module} imports {named}: {mine[1]} must not import {bad}")
    return out


def test_every_module_has_a_layer() -> None:
    missing = [m for m in MODULES if group_of(m) is None]
    assert not missing, f"add these modules to LAYERS in tests/test_layers.py: {missing}"


def test_each_stage_imports_only_what_lies_below_it() -> None:
    found = [v for module, path in MODULES.items()
             for line, target, named in imports_of(module, path)
             for v in violations(module, line, target, named)]
    assert not found, "layering broken:\n" + "\n".join(found)


@pytest.mark.parametrize(("module", "target", "named"), [
    ("mahdiao_rules.play.policies", "mahdiao_rules.settle.hand", "mahdiao_rules.settle.hand.settle"),
    ("mahdiao_rules.ruleset.compiler", "mahdiao_rules.settle.kai_chong", "mahdiao_rules.settle.kai_chong"),
    ("mahdiao_rules.settle.hand", "mahdiao_rules.play.policies", "mahdiao_rules.play.policies.Policy"),
    ("mahdiao_rules.settle.hand", "mahdiao_rules.play.tricks", "mahdiao_rules.play.tricks.play_random"),
    ("mahdiao_rules.history.reconstruct", "mahdiao_rules.report.replay", "mahdiao_rules.report.replay"),
    ("mahdiao_rules.simulate", "mahdiao_rules.history.partial", "mahdiao_rules.history.partial"),
    ("mahdiao_rules.report.replay", "mahdiao_rules.cli.common", "mahdiao_rules.cli.common"),
    ("mahdiao_rules.units", "mahdiao_rules.cards", "mahdiao_rules.cards"),
])
def test_the_check_catches_an_upward_import(module: str, target: str, named: str) -> None:
    assert violations(module, 1, target, named)


@pytest.mark.parametrize(("module", "target", "named"), [
    ("mahdiao_rules.settle.hand", "mahdiao_rules.play.tricks", "mahdiao_rules.play.tricks.PlayResult"),
    ("mahdiao_rules.pipeline", "mahdiao_rules.play.policies", "mahdiao_rules.play.policies.Policy"),
    ("mahdiao_rules.play.policies", "mahdiao_rules.play.procedure", "mahdiao_rules.play.procedure.prepare"),
    ("mahdiao_rules.report.replay", "mahdiao_rules", "mahdiao_rules.__version__"),
])
def test_the_check_allows_a_downward_import(module: str, target: str, named: str) -> None:
    assert not violations(module, 1, target, named)


ROOT_INIT = ROOT / "__init__.py"


def test_the_root_exports_the_api_only_lazily() -> None:
    assert not [v for line, target, named in imports_of(PACKAGE, ROOT_INIT)
                for v in violations(PACKAGE, line, target, named)]
    text = ROOT_INIT.read_text(encoding="utf-8")
    assert "def __getattr__" in text and "from . import api" in text


@pytest.mark.parametrize("text", [
    "from . import api\n",                                         # eager, at the top
    "from .api import replay\n",
    "def helper():\n    from . import api\n",                      # lazy, but not __getattr__
    "def __getattr__(name):\n    from .report import render\n",    # __getattr__, but not the api
    "if TYPE_CHECKING:\n    from .cli import main\n",
])
def test_the_lazy_export_is_no_loophole(text: str) -> None:
    found = [v for line, target, named in imports_of(PACKAGE, ROOT_INIT, text=text)
             for v in violations(PACKAGE, line, target, named)]
    assert found


def test_only_the_root_may_import_the_api_lazily() -> None:
    text = "def __getattr__(name):\n    from .. import api\n"
    path = ROOT / "report" / "replay.py"
    found = [v for line, target, named in imports_of("mahdiao_rules.report.replay", path, text=text)
             for v in violations("mahdiao_rules.report.replay", line, target, named)]
    assert found
