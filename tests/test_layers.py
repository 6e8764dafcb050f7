"""The library's layers, written down once by package, and proof that every import points down them.

Each module of ``src/windowmem`` belongs to the layer of the longest prefix below that
names it: a package's modules share its layer. A module may import windowmem modules of its own layer or of a lower one,
never a higher one, and the import graph has no cycles. Imports inside functions and
under ``TYPE_CHECKING`` count: a lazy import that runs upward is still upward.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src"

#: Layer by package (or core module), bottom first. The longest matching prefix decides.
#: The core sits at the top of ``src/windowmem``; each lesson's question has a package.
LAYERS: dict[str, int] = {
    # 0. values, text and counting: what everything else is made of
    "windowmem": 0,
    "windowmem.errors": 0,
    "windowmem.messages": 0,
    "windowmem.conversation": 0,
    "windowmem.examples": 0,
    "windowmem.tokens": 0,
    "windowmem.javascript": 0,
    "windowmem.key_templates": 0,
    "windowmem.turn_ranges": 0,
    "windowmem.arguments": 0,
    "windowmem.behaviour_check": 0,  # the rebuild questions' check: standard library only
    # 1. models: the products' window policies, the stores, the token-budget agent
    "windowmem.policies": 1,
    "windowmem.storage": 1,
    "windowmem.budget": 1,
    # 2. over a conversation: what each turn sends, recall, cost, a policy over a store
    "windowmem.replay": 2,
    "windowmem.recall": 2,
    "windowmem.cost": 2,
    "windowmem.prices": 2,
    "windowmem.chat_price": 3,  # an agent's model calls (windowmem.calls), priced
    "windowmem.budget.money": 2,
    # A call as the message array it sends, labelled as the money layer labels its items.
    "windowmem.budget.messages": 2,
    "windowmem.chat_memory": 2,
    # 3. one package per lesson question (a lesson package may use another, never a cycle)
    "windowmem.scope": 3,  # lesson 1: whose memory it is
    "windowmem.calls": 3,  # lesson 2: what a call carries
    "windowmem.outlive": 3,  # lesson 4: what outlives the session
    "windowmem.design": 3,  # lesson 5: designing multi-turn conversations
    # 4. tables (the one module that imports pandas)
    "windowmem.frames": 4,
    # 5. the edge: explorers and command lines
    "windowmem.explorer": 5,
    "windowmem.cli": 5,
    "windowmem.__main__": 5,
    "windowmem.budget.cli": 5,
    "windowmem.learner": 5,  # windowmem-course: the learner's working copy and JupyterLab
}


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    prefixes = [p for p in LAYERS if module == p or module.startswith(p + ".")]
    assert prefixes, f"{module} is in no layer: add it to LAYERS"
    return LAYERS[max(prefixes, key=len)]


def windowmem_imports(path: Path, module: str) -> set[str]:
    """The windowmem modules *path* imports, resolved to module names (not names inside them)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            # `from windowmem.budget import cli` imports the submodule windowmem.budget.cli.
            found.update(f"{base}.{a.name}" for a in node.names)
    return {name for name in found if name.split(".")[0] == "windowmem" and name in MODULES}


MODULES = {module_name(p): p for p in sorted(SOURCE.joinpath("windowmem").rglob("*.py"))}
GRAPH = {name: windowmem_imports(path, name) - {name} for name, path in MODULES.items()}


def test_the_layers_cover_every_module():
    assert all(layer_of(name) >= 0 for name in MODULES)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down_the_layers(module):
    upward = sorted(m for m in GRAPH[module] if layer_of(m) > layer_of(module))
    assert not upward, f"{module} (layer {layer_of(module)}) imports from above: {upward}"


def test_the_import_graph_has_no_cycle():
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            cycle = path[path.index(name) :] + (name,)
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        for imported in GRAPH[name]:
            # A package's __init__ importing its own submodules is how packages work.
            if not imported.startswith(name + "."):
                visit(imported, (*path, name))
        done.add(name)

    for module in sorted(GRAPH):
        visit(module, ())


def test_pandas_is_imported_by_frames_alone():
    importers = sorted(
        name
        for name, path in MODULES.items()
        if any(
            (isinstance(n, ast.Import) and any(a.name == "pandas" for a in n.names))
            or (isinstance(n, ast.ImportFrom) and n.module == "pandas")
            for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    )
    assert importers == ["windowmem.frames"]


def test_the_check_finds_an_upward_import(tmp_path):
    """The checker itself: a policy that imports the replay engine is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("from windowmem.replay import replay\nimport windowmem.frames\n")
    imported = windowmem_imports(bad, "windowmem.policies.bad")
    assert imported == {"windowmem.replay", "windowmem.frames"}
    assert all(layer_of(m) > layer_of("windowmem.policies.bad") for m in imported)
