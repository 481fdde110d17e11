"""The kit's layout: no import cycle between its modules, validator's folders in layers (the mock
below the grader), and the child's files apart from the rest.

An import inside a function counts: a cycle hidden behind a late import is still a cycle (two
modules that can't be read, or changed, one without the other). mock_llm is the lower layer: it
may use three leaves of validator, which import nothing of the kit (the wire the child speaks, the
kit's packages, the kit's files), and no other part of validator.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("validator", "mock_llm")
LEAVES = {"validator.child.wire", "validator.needs", "validator.files"}  # what mock_llm may use of validator
# Lowest first: a module imports only from its own layer or those before it. One way, as the data
# flows: the lesson, the jail, one file graded, what a learner sees of it, a class, the authors'
# tools, the command line over all.
LAYERS = [
    ("validator.files", "validator.needs", "validator.console", "validator.outcomes", "validator.child"),
    ("mock_llm",),
    ("validator.lessons",),
    ("validator.isolation",),
    ("validator.grading", "validator.checking"),
    ("validator.traces",),
    ("validator.learner",),
    ("validator.instructor",),
    ("validator.authoring",),
    ("validator.cli",),
]


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = modules()


def imported(name: str, path: Path) -> set[str]:
    """The kit's modules that module `name` imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in MODULES}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in MODULES else base)
    return (found & MODULES.keys()) - {name}


GRAPH = {name: imported(name, path) for name, path in MODULES.items()}


def test_the_scan_sees_imports_of_every_kind():
    assert {"validator.lessons", "validator.outcomes"} <= GRAPH["validator.checking"]  # from .x import y
    assert "validator.authoring.rules" in GRAPH["validator.authoring.command"]  # inside a subpackage
    assert "mock_llm.registry" in GRAPH["mock_llm"]  # a package's __init__
    assert "validator.child.wire" in GRAPH["validator.grading.runner"]  # across folders


def test_no_module_imports_itself_back_through_others():
    on_path, done, cycles = [], set(), []

    def visit(name: str) -> None:
        if name in on_path:
            cycles.append(on_path[on_path.index(name):] + [name])
            return
        if name in done:
            return
        on_path.append(name)
        for other in sorted(GRAPH[name]):
            visit(other)
        on_path.pop()
        done.add(name)

    for name in sorted(GRAPH):
        visit(name)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in cycles)


def test_the_mock_uses_only_the_graders_leaves():
    used = {other for name, others in GRAPH.items() if name.startswith("mock_llm") for other in others
            if other.startswith("validator")}
    assert used <= LEAVES, used - LEAVES
    assert all(not GRAPH[leaf] for leaf in LEAVES), {leaf: GRAPH[leaf] for leaf in LEAVES}


def layer(name: str) -> int:
    found = [i for i, members in enumerate(LAYERS) for m in members if name == m or name.startswith(m + ".")]
    assert found, f"{name} is in no layer: add its folder to LAYERS"
    return found[0]


def test_each_folder_imports_only_its_own_layer_and_those_below():
    upward = sorted(f"{name} -> {other}" for name, others in GRAPH.items() for other in others
                    if layer(other) > layer(name))
    assert not upward, "imports up the layers: " + "; ".join(upward)


def test_the_childs_files_import_nothing_of_the_kit_but_each_other():
    """They run in the jail as scripts beside each other (`import wire`), where nothing else of the
    kit is visible; the grader imports some of them for what the sides share."""
    child = {name: others for name, others in GRAPH.items() if name.startswith("validator.child.")}
    assert set(child) >= {"validator.child.sandbox", "validator.child.wire", "validator.child.enter_jail"}
    assert not {name: others - set(child) for name, others in child.items() if others - set(child)}
