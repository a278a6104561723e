"""The core's folders follow the flow, and its imports run one way (DESIGN.md, Layout).

Parses every module of ``workbench/`` (imports inside functions too) and fails on an import
cycle, on Qt imported below ``gui/``, and on an import from a later layer into an earlier one.
The checks are plain functions, so the tests below also show that each one catches a breach.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "workbench"

# earliest first; a module may import from its own layer's package and from earlier layers only
LAYERS = (
    ("workbench", "workbench.core", "workbench.core.errors", "workbench.core.real", "workbench.resources"),
    ("workbench.core.process_exit",),  # how the command line ends (it names an unexpected error as errors does)
    ("workbench.core.data",),
    ("workbench.core.privacy",),
    ("workbench.core.statistics",),
    ("workbench.core.synthetic",),
    ("workbench.core.release",),
    ("workbench.core.report",),
    ("workbench.cli", "workbench.gui"),
)
ONLY_ITSELF = {"workbench", "workbench.core"}  # their subpackages are layers of their own
QT = ("PySide6", "shiboken6", "pyqtgraph")


def module_sources(package: Path = PACKAGE) -> dict[str, str]:
    """Every module of ``package`` by dotted name ('workbench.core.data' for a package's __init__)."""
    sources = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        sources[name] = path.read_text(encoding="utf-8")
    return sources


def imports_of(name: str, source: str, modules: set[str]) -> set[str]:
    """What ``name`` imports, as dotted names: ``from P import m`` is the module P.m when that exists."""
    is_package = any(m.startswith(name + ".") for m in modules)
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolved against this module's package
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                found.add(submodule if submodule in modules else origin)
    return found


def layer_of(module: str) -> tuple[int, str] | None:
    """(layer index, the layer's package) of a module of workbench/, or None for anything else."""
    best = None
    for index, packages in enumerate(LAYERS):
        for package in packages:
            if module == package or (package not in ONLY_ITSELF and module.startswith(package + ".")):
                if best is None or len(package) > len(best[1]):
                    best = (index, package)
    return best


def breaches(sources: dict[str, str]) -> list[str]:
    """Every import that breaks the layout: Qt below gui/, a later layer imported by an earlier one,
    a sibling of the same layer imported (cli and gui), and every cycle."""
    modules = set(sources)
    graph = {name: imports_of(name, source, modules) for name, source in sources.items()}
    found = []
    for name, imported in sorted(graph.items()):
        own = layer_of(name)
        if own is None:
            found.append(f"{name} is in no layer: add its package to LAYERS in this test and to DESIGN.md")
            continue
        for target in sorted(imported):
            if target.split(".")[0] in QT and not (name == "workbench.gui" or name.startswith("workbench.gui.")):
                found.append(f"{name} imports Qt ({target}) below gui/")
            if not target.startswith("workbench"):
                continue
            theirs = layer_of(target)
            if theirs is None:
                found.append(f"{name} imports {target}, which is in no layer")
            elif theirs[0] > own[0]:
                found.append(f"{name} (layer {own[1]}) imports {target} from the later layer {theirs[1]}")
            elif theirs[0] == own[0] and theirs[1] != own[1]:
                found.append(f"{name} imports {target} from its sibling {theirs[1]}")
    found += [f"import cycle: {' -> '.join(cycle)}" for cycle in cycles(graph)]
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in graph:
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [group + [group[0]] for group in groups]


def test_workbench_imports_follow_the_flow():
    assert breaches(module_sources()) == []


def test_the_accountants_never_import_each_other():
    sources = module_sources()
    modules = set(sources)
    accountants = {"workbench.core.privacy.accounting", "workbench.core.privacy.privacy_loss"}
    for name in accountants:
        assert "workbench.core.privacy.events" in imports_of(name, sources[name], modules)
        assert not imports_of(name, sources[name], modules) & (accountants - {name})


def test_every_core_package_says_what_it_is_for_and_what_it_may_import():
    for package in ("core/data", "core/privacy", "core/statistics", "core/release", "core/report", "cli", "gui"):
        docstring = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
        assert docstring and len(docstring.splitlines()) == 2, package
        assert "import" in docstring.lower(), package


# The checks catch what they are for: each breach below is found.

GOOD = {
    "workbench": "",
    "workbench.core": "",
    "workbench.core.data": "from workbench.core.data.io import Table\n",
    "workbench.core.data.io": "import pandas\nfrom workbench.core.errors import DataFileError\n",
    "workbench.core.errors": "",
    "workbench.core.privacy": "",
    "workbench.core.privacy.mechanisms": "from workbench.core.data import Table\n",
    "workbench.gui": "",
    "workbench.gui.window": "from PySide6 import QtWidgets\nfrom workbench.core.privacy import mechanisms\n",
}


def test_a_sound_layout_has_no_breach():
    assert breaches(GOOD) == []


def test_a_cycle_is_found():
    found = breaches({**GOOD, "workbench.core.data.io": "from workbench.core.data import Table\n"})
    assert found == ["import cycle: workbench.core.data -> workbench.core.data.io -> workbench.core.data"]


def test_qt_below_gui_is_found():
    found = breaches({**GOOD, "workbench.core.privacy.mechanisms": "import pyqtgraph\n"})
    assert found == ["workbench.core.privacy.mechanisms imports Qt (pyqtgraph) below gui/"]


def test_a_later_layer_imported_by_an_earlier_one_is_found():
    found = breaches({**GOOD, "workbench.core.data.io": "def f():\n    from workbench.core.privacy import noise\n"})
    assert found == ["workbench.core.data.io (layer workbench.core.data) imports workbench.core.privacy "
                     "from the later layer workbench.core.privacy"]


def test_the_app_and_the_command_line_do_not_import_each_other():
    found = breaches({**GOOD, "workbench.cli": "from workbench.gui import window\n"})
    assert found == ["workbench.cli imports workbench.gui.window from its sibling workbench.gui"]


def test_a_module_outside_every_layer_is_named():
    found = breaches({**GOOD, "workbench.extras": ""})
    assert found == ["workbench.extras is in no layer: add its package to LAYERS in this test and to DESIGN.md"]
