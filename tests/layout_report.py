"""The layout of the code, measured: module sizes, the longest functions, import circles and
imports that climb a layer.

    python tests/layout_report.py            # the report
    python tests/layout_report.py --check    # the report, exit status 1 if a limit is broken

Run it from the checkout (no package needs to be installed: it reads the source with ``ast``).
The layers, from the bottom up (an import may point down or sideways, never up):

    0  tripletbench (src/tripletbench: version, atomic writes, hashing)
    1  tripletbench.algorithms, tripletbench.evaluation
    2  tripletbench.datasets
    3  tripletbench.harness        the generic core: it names no study
    4  tripletbench.studies        one package per study
    5  workflow/                   rule files and their thin scripts (not a package)

Limits (``--check``): a module of at most MAX_MODULE lines, not counting its top-level literal
data tables (a dict, list, tuple or string assigned at module level, e.g. a paper's settings);
a function or method of at most MAX_FUNCTION lines; no import circle; no import up a layer.
``tests/test_layout.py`` runs the check in the test suite.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE = 600
MAX_FUNCTION = 80
# folder of the checkout -> (package name, layer)
PACKAGES = {
    "src/tripletbench": ("tripletbench", 0),
    "algorithms": ("tripletbench.algorithms", 1),
    "evaluation": ("tripletbench.evaluation", 1),
    "datasets": ("tripletbench.datasets", 2),
    "harness": ("tripletbench.harness", 3),
    "studies": ("tripletbench.studies", 4),
}
SCRIPT_FOLDERS = ("workflow/scripts",)  # layer 5: measured for size, may import anything
DATA_NODES = (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Constant, ast.JoinedStr)


def source_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the project: dotted name -> file (scripts keyed by their path)."""
    found = {}
    for folder, (package, _) in PACKAGES.items():
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            found[".".join([package, *parts])] = path
    for folder in SCRIPT_FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            found[str(path.relative_to(root))] = path
    return found


def layer_of(module: str) -> int:
    """The layer of a dotted module name (5 for a workflow script)."""
    best = (5, "")
    for package, layer in PACKAGES.values():
        if module == package or module.startswith(package + "."):
            if len(package) > len(best[1]):
                best = (layer, package)
    return best[0] if best[1] else 5


def data_lines(tree: ast.Module) -> int:
    """Lines of top-level literal data tables (assignments of a literal spanning > 5 lines)."""
    total = 0
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, DATA_NODES):
            span = node.end_lineno - node.lineno + 1
            if span > 5:
                total += span
    return total


def functions(tree: ast.AST, prefix: str = ""):
    """(qualified name, first line, length in lines) of every function and method, nested too."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = f"{prefix}{node.name}"
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            yield name, node.lineno, node.end_lineno - first + 1
            yield from functions(node, name + ".")
        elif isinstance(node, ast.ClassDef):
            yield from functions(node, f"{prefix}{node.name}.")
        else:
            yield from functions(node, prefix)


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imports(module: str, path: Path, tree: ast.Module, known: set[str]) -> set[str]:
    """The project modules a module imports (top level and inside functions alike)."""
    out = set()
    package = _package_of(module, path) if "." in module and "/" not in module else ""
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            names = [stem] + [f"{stem}.{a.name}" for a in node.names]
        for name in names:
            # the longest known module the name starts with
            parts = name.split(".")
            for k in range(len(parts), 0, -1):
                candidate = ".".join(parts[:k])
                if candidate in known:
                    if candidate != module:
                        out.add(candidate)
                    break
    return out


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def measure(root: Path = ROOT) -> dict:
    """Every measurement of the report, as plain data (the test reads it)."""
    modules = source_modules(root)
    known = set(modules)
    sizes, funcs, graph = {}, [], {}
    for module, path in modules.items():
        text = path.read_text()
        tree = ast.parse(text)
        lines = len(text.splitlines())
        sizes[module] = (lines, lines - data_lines(tree), str(path.relative_to(root)))
        for name, line, length in functions(tree):
            funcs.append((length, f"{path.relative_to(root)}:{line}", name))
        graph[module] = imports(module, path, tree, known)
    upward = sorted(
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if layer_of(target) > layer_of(module)
    )
    return {
        "sizes": sizes,
        "functions": sorted(funcs, reverse=True),
        "circles": circles(graph),
        "upward": upward,
        "graph": graph,
    }


def report(m: dict, top: int = 15) -> list[str]:
    """The report's lines; problems (limits broken) are marked with '!'."""
    sizes = m["sizes"]
    code = sum(s[0] for s in sizes.values())
    out = [f"{len(sizes)} modules, {code} lines (tests not counted)"]
    by_package: dict[str, list[int]] = {}
    for module, (lines, _, _) in sizes.items():
        packages = {p.split(".")[-1] for p, _ in PACKAGES.values()}
        if "/" in module:
            key = "workflow/scripts"
        elif module.count(".") and module.split(".")[1] in packages:
            key = module.split(".")[1]
        else:
            key = "tripletbench (src)"
        by_package.setdefault(key, []).append(lines)
    out.append("lines per package: " + ", ".join(
        f"{k} {sum(v)} ({len(v)} modules)" for k, v in sorted(by_package.items())
    ))
    big = sorted(((s[1], s[0], s[2]) for s in sizes.values()), reverse=True)
    over = [b for b in big if b[0] > MAX_MODULE]
    out.append(f"\nlargest modules (lines without data tables / all; limit {MAX_MODULE}): "
               f"{len(over)} over")
    for code_lines, lines, path in big[:top]:
        mark = "!" if code_lines > MAX_MODULE else " "
        out.append(f" {mark} {code_lines:5d} / {lines:5d}  {path}")
    long = [f for f in m["functions"] if f[0] > MAX_FUNCTION]
    out.append(f"\nlongest functions (lines; limit {MAX_FUNCTION}): {len(long)} over")
    for length, where, name in m["functions"][: max(top, len(long))]:
        mark = "!" if length > MAX_FUNCTION else " "
        out.append(f" {mark} {length:5d}  {name}  ({where})")
    out.append(f"\nimport circles: {len(m['circles'])}")
    for component in m["circles"]:
        out.append(f" ! {len(component)} modules: " + ", ".join(component))
    out.append(f"\nimports up a layer: {len(m['upward'])}")
    for module, target in m["upward"]:
        out.append(f" ! {module} -> {target}")
    return out


def problems(m: dict) -> list[str]:
    """The limits broken, one line each (empty when the layout holds)."""
    out = [f"module {s[2]}: {s[1]} lines" for s in m["sizes"].values() if s[1] > MAX_MODULE]
    out += [f"function {n} ({w}): {length} lines" for length, w, n in m["functions"]
            if length > MAX_FUNCTION]
    out += ["import circle: " + " <-> ".join(c) for c in m["circles"]]
    out += [f"import up a layer: {a} -> {b}" for a, b in m["upward"]]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a limit is broken")
    parser.add_argument("--top", type=int, default=15, help="rows per list (default 15)")
    args = parser.parse_args(argv)
    m = measure()
    print("\n".join(report(m, args.top)))
    if args.check:
        broken = problems(m)
        print(f"\n{len(broken)} limit(s) broken" if broken else "\nevery limit holds")
        return 1 if broken else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
