#!/usr/bin/env python3
"""check_layers.py BUILD_DIR: the library's layering, checked on its object files.
Each file of src/LAYER/ may call only files of its own layer or of a layer below
(base < gl < core < storage < ops < io, solvers < cli); no two files call each other in a
circle (the CLI's files included); only src/gl/ calls gl* functions; the solvers and the CLI
use only the public API (texla_* but not texla__*) of the library, besides their own files.
Prints 'N passed, M failed' like the other test binaries."""
import os, subprocess, sys

RANK = {"base": 0, "gl": 1, "core": 2, "storage": 3, "ops": 4, "io": 5, "solvers": 5, "cli": 6}
PUBLIC_ONLY = ("solvers", "cli")
b = sys.argv[1] if len(sys.argv) > 1 else "build"
files = {}
for d in sorted(RANK):
    p = os.path.join(b, "obj", "cli") if d == "cli" else os.path.join(b, "obj", "lib", d)
    for f in sorted(os.listdir(p)) if os.path.isdir(p) else []:
        if f.endswith(".o") and os.path.exists(os.path.join("src", d, f[:-2] + ".c")):
            files[f"{d}/{f[:-2]}.c"] = os.path.join(p, f)  # objects of removed files: skipped
defs, uses = {}, {}
for name, path in files.items():
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    uses[name] = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBR":
            defs[parts[2]] = name
        elif len(parts) == 2 and parts[0] == "U":
            uses[name].add(parts[1])
passed = failed = 0
def check(ok, msg):
    global passed, failed
    if ok:
        passed += 1
        print("ok  ", msg)
    else:
        failed += 1
        print("FAIL", msg)
edges = {n: set() for n in files}
for n, syms in uses.items():
    for s in syms:
        t = defs.get(s)
        if t and t != n:
            edges[n].add(t)
    layer = n.split("/")[0]
    gl = sorted(s for s in syms if s.startswith("glad_gl") or (s.startswith("gl") and s[2:3].isupper()))
    if layer != "gl":
        check(not gl, f"{n}: calls no GL ({', '.join(gl[:5])})")
    if layer in PUBLIC_ONLY:
        internal = sorted(s for s in syms if s in defs and defs[s].split("/")[0] != layer and
                          (not s.startswith("texla_") or s.startswith("texla__")))
        check(not internal, f"{n}: uses only the library's public API ({', '.join(internal[:5])})")
for n, ts in sorted(edges.items()):
    up = sorted(t for t in ts if RANK[t.split('/')[0]] > RANK[n.split('/')[0]])
    check(not up, f"{n}: calls no layer above it ({', '.join(up)})")
# cycles: Tarjan's strongly connected components
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        sccs.append(comp)
sys.setrecursionlimit(10000)
for v in sorted(edges):
    if v not in index: visit(v)
cycles = [c for c in sccs if len(c) > 1]
check(not cycles, "no two files call each other in a circle" +
      ("".join(f"; circle: {' <-> '.join(sorted(c))}" for c in cycles)))
check(len(files) > 10, f"{len(files)} library files read")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
