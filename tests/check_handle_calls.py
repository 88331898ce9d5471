#!/usr/bin/env python3
"""check_handle_calls.py: every public call that takes a handle is in tests/test_handles.c.
The calls are read from include/texla.h as the compiler sees it (cc -E, so the functions the
element-wise macro declares are there too): a parameter of a handle type (texla_mat, texla_vec,
texla_scalar, texla_banded, texla_sparse, texla_op, texla_coef, texla_ccoef), a
`const texla_lcp_desc *` or `const texla_sparse_desc *` (they carry handles), or the workspace a destroy call takes. test_handles.c must name each
one in a row of its table (read through cc -E, with adjacent string literals joined), or
for the destroy calls, call it. A new call that takes a handle therefore needs a row there, so that another
context's handle is tried in each of its positions. Prints 'N passed, M failed'."""
import os, re, subprocess, sys

cc = os.environ.get("CC", "cc")
def pre(path, extra=()):
    return subprocess.run([cc, "-E", "-P", "-Iinclude", "-D_POSIX_C_SOURCE=200809L", *extra,
                           "-x", "c", path], capture_output=True, text=True, check=True).stdout

HANDLE = r"(const\s+)?texla_(mat|vec|scalar|banded|sparse|op|c?coef)\s+\w+"
header = " ".join(pre("include/texla.h").split())
takes = set()
for m in re.finditer(r"texla_result\s+(texla_\w+)\s*\(([^)]*)\)|void\s+(texla_\w+)\s*\(([^)]*)\)", header):
    name, params = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    for p in (x.strip() for x in params.split(",")):
        if (re.fullmatch(HANDLE, p) or re.fullmatch(r"const\s+texla_(lcp|sparse)_desc\s*\*\s*\w+", p)
                or (name.endswith("_destroy") and re.fullmatch(r"texla_lcp_workspace\s*\*\s*\w+", p))):
            takes.add(name)
            break

test = pre("tests/test_handles.c", ["-Ibuild/glad/include", "-Itests"])
test = re.sub(r'"\s+"', "", test)  # "texla_" "mat" "_fill" -> "texla_mat_fill"
# rows of the table name the call in a string; the destroy calls are made by test_destroy
named = set(re.findall(r'"(texla_\w+)[ "]', test)) | {
    n for n in re.findall(r"\b(texla_\w+_destroy)\s*\(", test)}
missing = sorted(takes - named)
passed = len(takes) - len(missing)
for n in missing:
    print(f"FAIL {n} takes a handle but tests/test_handles.c does not try it with another "
          f"context's handle (add a row to its table)")
print(f"{len(takes)} calls take handles; {passed} of them are in tests/test_handles.c")
print(f"{passed} passed, {len(missing)} failed")
sys.exit(1 if missing else 0)
