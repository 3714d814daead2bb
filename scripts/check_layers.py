#!/usr/bin/env python3
"""Checks that docs/architecture.md's layer table equals CMakeLists.txt's link graph.

Every floe_module(<name> DIRS ... DEPS ...) of CMakeLists.txt must be a row of
the table between the markers <!-- layers:begin --> and <!-- layers:end -->
in docs/architecture.md, with the same folders and the same floe_* links, and
every row must be a module. Rows go from the top layer down: a layer may link
only layers listed below it. Prints every difference and exits 1 on any.
Usage: scripts/check_layers.py [repo root]
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
cmake = (root / "CMakeLists.txt").read_text()
doc = (root / "docs" / "architecture.md").read_text()

modules = {}
for match in re.finditer(r"floe_module\((\w+)\s+DIRS\s+(.*?)(?:\s+DEPS\s+(.*?))?\)", cmake, re.S):
    name, dirs, deps = match.group(1), match.group(2).split(), (match.group(3) or "").split()
    modules[name] = (sorted(dirs), sorted(d[len("floe_"):] for d in deps if d.startswith("floe_")))
# Interface helpers that are not layers (e.g. floe_snappy wraps a system library).
helpers = set(re.findall(r"add_library\(floe_(\w+) INTERFACE\)", cmake)) - set(modules)
for name, (dirs, deps) in modules.items():
    modules[name] = (dirs, [d for d in deps if d not in helpers])

block = re.search(r"<!-- layers:begin -->(.*?)<!-- layers:end -->", doc, re.S)
if not block:
    sys.exit("docs/architecture.md: no <!-- layers:begin --> ... <!-- layers:end --> table")
rows = []
for line in block.group(1).splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) < 3 or cells[0] in ("layer", "") or set(cells[0]) <= set("-: "):
        continue
    name = cells[0].strip("`")
    dirs = sorted(d.strip("` ").removeprefix("src/") for d in cells[1].split(",") if d.strip())
    links = sorted(d.strip("` ") for d in cells[2].split(",") if d.strip() and d.strip() != "-")
    rows.append((name, dirs, links))

errors = []
documented = {name for name, _, _ in rows}
for name in sorted(set(modules) - documented):
    errors.append(f"layer {name} (CMakeLists.txt) is missing from docs/architecture.md's layer table")
for name in sorted(documented - set(modules)):
    errors.append(f"docs/architecture.md lists layer {name}, which CMakeLists.txt does not build")
below = set()
for name, dirs, links in reversed(rows):
    if name in modules:
        want_dirs, want_links = modules[name]
        if dirs != want_dirs:
            errors.append(f"layer {name}: docs say folders {dirs}, CMakeLists.txt builds {want_dirs}")
        if links != want_links:
            errors.append(f"layer {name}: docs say it links {links}, CMakeLists.txt links {want_links}")
    for link in links:
        if link not in below:
            errors.append(f"layer {name} links {link}, which the table does not list below it")
    below.add(name)
for error in errors:
    print(error)
if errors:
    sys.exit(1)
print(f"layers: {len(rows)} layers in docs/architecture.md match CMakeLists.txt")
