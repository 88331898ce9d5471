#!/bin/sh
# tests/test_cli.sh BUILD_DIR - the texla command-line program and its script language.
# Run from the repository root (tests/run.sh does: sh tests/test_cli.sh build). Every statement
# form is checked against CPU results: the CLI saves its results as Matrix Market files and awk
# recomputes them in double precision from the saved inputs (rand's generator, MRG32k3a, is
# reproduced bit for bit). Then each error class (message FILE:LINE:COLUMN and exit status),
# the atomic writes, and the data/ examples. Ends with "N passed, M failed, K skipped".
B=${1:-build}
ROOT=$(pwd)
case $B in /*) T="$B/bin/texla" ;; *) T="$ROOT/$B/bin/texla" ;; esac
P=0 F=0 S=0
pass() { P=$((P + 1)); echo "ok   $1"; }
fail() { F=$((F + 1)); echo "FAIL $1"; [ -z "$2" ] || printf '%s\n' "$2" | sed 's/^/     /'; }
skip() { S=$((S + 1)); echo "SKIP $1"; }
summary() { echo "$P passed, $F failed, $S skipped"; }

if [ ! -x "$T" ]; then
    fail "texla binary: $T is missing (make B=$B $B/bin/texla)"
    summary
    exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/texla-cli.XXXXXX") || { fail "mktemp -d"; summary; exit 1; }
trap 'cd /; rm -rf "$TMP"' EXIT
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 141' PIPE; trap 'exit 143' TERM
cd "$TMP" || exit 1

# ---- helpers ----

# run SCRIPT_TEXT: writes s.tx, runs it; $rc, out (stdout), err (stderr)
run() {
    printf '%s\n' "$1" > s.tx
    "$T" run s.tx > out 2> err
    rc=$?
}

# awk library: Matrix Market reading, rand's generator, comparison with E[i, j] (ER x EC)
LIB="$TMP/lib.awk"
cat > "$LIB" <<'EOF'
# mm_read(FILE, NAME): M[NAME, i, j] (0-based), R[NAME] x C[NAME]; array or coordinate files
function mm_read(file, name,    line, f, coord, sym, skew, n, k, i, j) {
    coord = 0; sym = 0; skew = 0; n = 0; k = 0
    while ((getline line < file) > 0) {
        if (line ~ /^%%MatrixMarket/) {
            coord = line ~ /coordinate/; sym = line ~ / symmetric/; skew = line ~ /skew/
            continue
        }
        if (line ~ /^%/ || line ~ /^[ \t]*$/) continue
        split(line, f)
        if (!n) {
            R[name] = f[1] + 0; C[name] = f[2] + 0; n = 1
            for (i = 0; i < R[name]; i++) for (j = 0; j < C[name]; j++) M[name, i, j] = 0
            continue
        }
        if (coord) {
            i = f[1] - 1; j = f[2] - 1; M[name, i, j] += f[3]
            if ((sym || skew) && i != j) M[name, j, i] += skew ? -f[3] : f[3]
        } else {
            i = k % R[name]; j = int(k / R[name]); M[name, i, j] = f[1] + 0; k++
        }
    }
    close(file)
    if (!n) { print "cannot read " file; exit 1 }
}
# E = the matrix NAME (to compare another file with it)
function expect_mat(name,    i, j) {
    ER = R[name]; EC = C[name]
    for (i = 0; i < ER; i++) for (j = 0; j < EC; j++) E[i, j] = M[name, i, j]
}
# E = op(A) * op(B), ta/tb: transpose flags
function expect_mul(a, b, ta, tb,    i, j, k, s, K) {
    ER = ta ? C[a] : R[a]; K = ta ? R[a] : C[a]; EC = tb ? R[b] : C[b]
    for (i = 0; i < ER; i++) for (j = 0; j < EC; j++) {
        s = 0
        for (k = 0; k < K; k++) s += (ta ? M[a, k, i] : M[a, i, k]) * (tb ? M[b, j, k] : M[b, k, j])
        E[i, j] = s
    }
}
# rand(R, C, SEED): MRG32k3a seeded as src/cli/values.c documents
function mrg_seed(seed,    x, i) {
    x = seed % 67108859; G[0] = x + 1
    for (i = 1; i < 6; i++) { x = (x * x + 1234567 + i) % 67108859; G[i] = x + 1 }
    G[5] += 67108864 * int(seed / 67108859)
}
function mrg_next(    p1, p2, k) {
    p1 = 1403580 * G[1] - 810728 * G[0]
    k = int(p1 / 4294967087); p1 -= k * 4294967087; if (p1 < 0) p1 += 4294967087
    G[0] = G[1]; G[1] = G[2]; G[2] = p1
    p2 = 527612 * G[5] - 1370589 * G[3]
    k = int(p2 / 4294944443); p2 -= k * 4294944443; if (p2 < 0) p2 += 4294944443
    G[3] = G[4]; G[4] = G[5]; G[5] = p2
    return (p1 <= p2 ? p1 - p2 + 4294967087 : p1 - p2) * 2.328306549295727688e-10
}
function expect_rand(r, c, seed,    i, j) {
    mrg_seed(seed); ER = r; EC = c
    for (i = 0; i < r; i++) for (j = 0; j < c; j++) E[i, j] = int(mrg_next() * 16777216) / 8388608 - 1
}
# compares FILE with E by normwise relative error
function finish(file, tol,    i, j, d, num, den, err) {
    mm_read(file, "GOT")
    if (R["GOT"] != ER || C["GOT"] != EC) {
        printf "%s is %d x %d, expected %d x %d\n", file, R["GOT"], C["GOT"], ER, EC; exit 1
    }
    if (tol == 0) { # exact: the same float, printed to 9 digits as texla writes it
        for (i = 0; i < ER; i++) for (j = 0; j < EC; j++)
            if (sprintf("%.9g", M["GOT", i, j]) != sprintf("%.9g", E[i, j])) {
                printf "%s: (%d, %d) is %.9g, expected %.9g\n", file, i, j, M["GOT", i, j], E[i, j]; exit 1
            }
        printf "exact"
        exit 0
    }
    num = 0; den = 0
    for (i = 0; i < ER; i++) for (j = 0; j < EC; j++) {
        d = M["GOT", i, j] - E[i, j]; num += d * d; den += E[i, j] * E[i, j]
    }
    err = sqrt(num / (den > 0 ? den : 1))
    if (err > tol) { printf "%s: relative error %.3g > %.3g\n", file, err, tol; exit 1 }
    printf "rel. error %.2g", err
    exit 0
}
EOF

# check LABEL FILE TOL < awk code setting E, ER, EC (BEGIN block)
check() {
    { cat; printf '\nBEGIN { finish("%s", %s) }\n' "$2" "$3"; } > body.awk
    if o=$(awk -f "$LIB" -f body.awk 2>&1); then pass "$1 ($o)"; else fail "$1" "$o"; fi
}

# awk_ok LABEL < awk program that exits 0 (printing a note) or 1 (printing why)
awk_ok() {
    cat > body.awk
    if o=$(awk -f "$LIB" -f body.awk 2>&1); then pass "$1${o:+ ($o)}"; else fail "$1" "$o"; fi
}

# expect_error LABEL STATUS MESSAGE SCRIPT: exit status and the error line, which must start
# with MESSAGE (the whole line when MESSAGE ends with '$')
expect_error() {
    run "$4"
    case $3 in
    *'$') want=${3%?}; line=$(grep -F -x -- "$want" err) ;;
    *) line=$(awk -v p="$3" 'index($0, p) == 1' err) ;;
    esac
    if [ "$rc" -eq "$2" ] && [ -n "$line" ]; then
        pass "$1: exit $rc, $(head -n 1 err)"
    else
        fail "$1: exit $rc (expected $2)" "stderr: $(cat err)
expected: $3"
    fi
}

# png_info FILE: "WIDTH HEIGHT" when FILE starts with the PNG signature, else nothing
png_info() {
    [ -f "$1" ] || return 1
    sig=$(od -An -tx1 -N8 "$1" | tr -d ' \n')
    [ "$sig" = 89504e470d0a1a0a ] || return 1
    od -An -tu1 -j16 -N8 "$1" | awk '{ print ($1 * 16777216 + $2 * 65536 + $3 * 256 + $4), ($5 * 16777216 + $6 * 65536 + $7 * 256 + $8) }'
}

# is_png LABEL FILE [WIDTH HEIGHT]
is_png() {
    wh=$(png_info "$2")
    if [ -z "$wh" ]; then fail "$1: $2 is not a PNG file"; return; fi
    if [ -n "$3" ] && [ "$wh" != "$3 $4" ]; then fail "$1: $2 is $wh pixels, expected $3 $4"; return; fi
    pass "$1: $2 is a PNG of $wh pixels"
}

no_tmp_files() { # LABEL: nothing named *.tmp* is left in the directory
    left=$(ls -A | grep '\.tmp' || true)
    if [ -z "$left" ]; then pass "$1: no temporary file left"; else fail "$1: left $left"; fi
}

# ---- the GL context ----
echo "== texla CLI: $T"
if ! "$T" info > info.txt 2> info.err; then
    skip "every CLI test: no GL context ($(cat info.err))"
    summary
    exit 0
fi
if grep -q '^renderer: ' info.txt && grep -q '^float render: *yes' info.txt &&
   grep -q '^max texture: *[0-9]' info.txt && grep -q '^backends: ' info.txt; then
    pass "texla info: $(grep '^renderer:' info.txt | sed 's/  */ /g')"
else
    fail "texla info" "$(cat info.txt)"
fi

# ---- usage: exit 2; --help, --version: exit 0 ----
"$T" --version > out 2> err; rc=$?
[ $rc -eq 0 ] && grep -q '^texla [0-9][0-9.]*$' out && pass "--version: $(cat out)" || fail "--version: exit $rc" "$(cat out err)"
"$T" --help > out 2> err; rc=$?
[ $rc -eq 0 ] && grep -q 'texla \[--backend B\] run' out && grep -q 'cg(A, b' out && pass "--help: usage and the language" || fail "--help: exit $rc"
for args in "" "frob" "run" "run a.tx b.tx" "info extra" "run --bogus" "--version x" "--backend" "--backend vulkan run x.tx" "run --backend gpu x.tx" "--frob info"; do
    # shellcheck disable=SC2086
    "$T" $args > out 2> err; rc=$?
    if [ $rc -eq 2 ] && grep -q '^usage: texla \[--backend B\] run' err; then
        pass "usage error 'texla $args': exit 2, $(head -n 1 err)"
    else
        fail "usage error 'texla $args': exit $rc (expected 2)" "$(cat err)"
    fi
done
"$T" run missing.tx > out 2> err; rc=$?
[ $rc -eq 1 ] && grep -q '^texla: cannot open missing.tx: ' err && pass "missing script: exit 1, $(cat err)" || fail "missing script: exit $rc" "$(cat err)"

# ---- every statement form against the CPU ----
cat > A.mtx <<'EOF'
%%MatrixMarket matrix array real general
% 3 x 4, column by column: an asymmetric matrix
3 4
1
-2
0.5
3
4
-1
0
2.25
7
-3
1
8
EOF
cat > S.mtx <<'EOF'
%%MatrixMarket matrix coordinate real general
% 5 x 5: a diagonal, offsets -2 and +1, a stray (0, 4) entry and a duplicate that adds
5 5 13
1 1 4
2 2 5
3 3 6
4 4 7
5 5 8
3 1 -1
4 2 -2
5 3 -3
1 2 0.5
2 3 0.25
3 4 0.125
1 5 9
1 1 1
EOF
cat > Sym.mtx <<'EOF'
%%MatrixMarket matrix coordinate real symmetric
% 4 x 4 symmetric positive definite (lower triangle)
4 4 7
1 1 5
2 2 6
3 3 7
4 4 8
2 1 -1
3 2 -2
4 1 0.5
EOF
cat > v5.mtx <<'EOF'
%%MatrixMarket matrix array real general
5 1
1
-2
3
0.5
-1.5
EOF

run '# every form, results saved for awk
A = load "A.mtx"                   # array file: dense
S = load "S.mtx"                   # coordinate file: sparse
Sd = load "S.mtx" as dense
Sb = load "S.mtx" as banded
Ss = load "A.mtx" as sparse
v = load "v5.mtx"
save A "o_A.mtx"
save S "o_S.mtx"
save Sd "o_Sd.mtx"
save Sb "o_Sb.mtx"
save Ss "o_Ss.mtx"
print S
print Sb
print Ss
R1 = rand(7, 9, 42)
R2 = rand(9, 5, 3)
R3 = rand(7, 5, 11)
save R1 "o_R1.mtx"
save R2 "o_R2.mtx"
save R3 "o_R3.mtx"
save rand(7, 9, 42) "o_R1b.mtx"
save rand(64, 64, 0) "o_Rbig.mtx"
save rand(3, 4, 2147483647) "o_Rmax.mtx"
save zeros(3, 2) "o_zeros.mtx"
save ones(2, 3) "o_ones.mtx"
save zeros(3) "o_zeros3.mtx"
save eye(4) "o_eye.mtx"
C = R1 * R2
save C "o_mul.mtx"
save R1 * R3 "o_nt_wrong_shape_is_not_run.mtx" # not reached: see the error tests
'
expect_rc=$rc
# the last line fails on purpose (7 x 9 times 7 x 5); everything before it ran
if [ $expect_rc -eq 1 ] && grep -q '^s.tx:31:9: error: shape mismatch: 7 x 9 dense matrix \* 7 x 5 dense matrix (inner dimensions 9 and 7 differ)$' err; then
    pass "a runtime error stops the script at its line (exit 1, $(cat err))"
else
    fail "runtime error at the last line: exit $expect_rc" "$(cat err)"
fi
[ ! -e o_nt_wrong_shape_is_not_run.mtx ] && [ -f o_mul.mtx ] && pass "statements before the error ran, the failing save wrote nothing" || fail "files before/after the error"

check "load array file as dense, save (array)" o_A.mtx 0 <<'EOF'
BEGIN { mm_read("A.mtx", "A"); expect_mat("A") }
EOF
grep -q '^%%MatrixMarket matrix array real general' o_A.mtx && pass "save dense: array format" || fail "save dense: $(head -n 1 o_A.mtx)"
check "load coordinate file as sparse (duplicates add), save" o_S.mtx 0 <<'EOF'
BEGIN { mm_read("S.mtx", "S"); expect_mat("S") }
EOF
grep -q '^%%MatrixMarket matrix coordinate real general' o_S.mtx && pass "save sparse: coordinate format" || fail "save sparse: $(head -n 1 o_S.mtx)"
check "load coordinate file as dense" o_Sd.mtx 0 <<'EOF'
BEGIN { mm_read("S.mtx", "S"); expect_mat("S") }
EOF
check "load coordinate file as banded (diagonals detected)" o_Sb.mtx 0 <<'EOF'
BEGIN { mm_read("S.mtx", "S"); expect_mat("S") }
EOF
check "load array file as sparse" o_Ss.mtx 0 <<'EOF'
BEGIN { mm_read("A.mtx", "A"); expect_mat("A") }
EOF
grep -q '^S = 5 x 5 sparse matrix (13 entries)$' out && pass "print: a sparse matrix's kind and entries" || fail "print S" "$(cat out)"
grep -q '^Sb = 5 x 5 banded matrix (4 diagonals), offsets -2 0 1 4$' out && pass "load as banded: the diagonals present in the file (-2 0 1 4)" || fail "print Sb" "$(cat out)"
grep -q '^Ss = 3 x 4 sparse matrix (11 entries)$' out && pass "load array as sparse: the nonzeros" || fail "print Ss" "$(cat out)"
check "rand(7, 9, 42) is MRG32k3a, bit for bit" o_R1.mtx 0 <<'EOF'
BEGIN { expect_rand(7, 9, 42) }
EOF
check "rand(9, 5, 3)" o_R2.mtx 0 <<'EOF'
BEGIN { expect_rand(9, 5, 3) }
EOF
check "rand is deterministic (same seed, same matrix)" o_R1b.mtx 0 <<'EOF'
BEGIN { mm_read("o_R1.mtx", "A"); expect_mat("A") }
EOF
check "rand(3, 4, 2147483647) (the largest seed)" o_Rmax.mtx 0 <<'EOF'
BEGIN { expect_rand(3, 4, 2147483647) }
EOF
awk_ok "rand(64, 64, 0): uniform in [-1, 1)" <<'EOF'
BEGIN {
    mm_read("o_Rbig.mtx", "A"); lo = 1; hi = -1; s = 0
    for (i = 0; i < 64; i++) for (j = 0; j < 64; j++) { x = M["A", i, j]; if (x < lo) lo = x; if (x > hi) hi = x; s += x }
    if (lo < -1 || hi >= 1 || lo > -0.99 || hi < 0.99 || s / 4096 > 0.05 || s / 4096 < -0.05) { print "min", lo, "max", hi, "mean", s / 4096; exit 1 }
    printf "min %.4f, max %.4f, mean %.4f", lo, hi, s / 4096
}
EOF
check "zeros(3, 2)" o_zeros.mtx 0 <<'EOF'
BEGIN { ER = 3; EC = 2 }
EOF
check "ones(2, 3)" o_ones.mtx 0 <<'EOF'
BEGIN { ER = 2; EC = 3; for (i = 0; i < 2; i++) for (j = 0; j < 3; j++) E[i, j] = 1 }
EOF
check "zeros(3) is 3 x 3" o_zeros3.mtx 0 <<'EOF'
BEGIN { ER = 3; EC = 3 }
EOF
check "eye(4)" o_eye.mtx 0 <<'EOF'
BEGIN { ER = 4; EC = 4; for (i = 0; i < 4; i++) E[i, i] = 1 }
EOF
check "C = A * B (7 x 9 times 9 x 5)" o_mul.mtx 1e-6 <<'EOF'
BEGIN { mm_read("o_R1.mtx", "A"); mm_read("o_R2.mtx", "B"); expect_mul("A", "B", 0, 0) }
EOF

run 'A = rand(7, 9, 42)
B = rand(7, 5, 11)
D = rand(6, 9, 5)
E = rand(4, 7, 6)
save A "r_A.mtx"
save B "r_B.mtx"
save D "r_D.mtx"
save E "r_E.mtx"
save A'"'"' * B "o_tn.mtx"          # texla_mat_matmul_tn
save A * D'"'"' "o_nt.mtx"          # texla_mat_matmul_nt
x = rand(9, 1, 8)
save x "x.mtx"
save A * x "o_Ax.mtx"              # B may be a vector
save A'"'"' "o_At.mtx"
save x'"'"' "o_xt.mtx"
save A'"'"' * E'"'"' "o_tt.mtx"
save A + A "o_add.mtx"
save A - D(1) "o_never.mtx"
'
grep -q "^s.tx:18:10: error: D(i) reads an element of a vector; D is a 6 x 9 dense matrix: write D(i, j)$" err && pass "one index of a matrix is an error: $(cat err)" || fail "D(1)" "$(cat err)"
check "C = A' * B (texla_mat_matmul_tn)" o_tn.mtx 1e-6 <<'EOF'
BEGIN { mm_read("r_A.mtx", "A"); mm_read("r_B.mtx", "B"); expect_mul("A", "B", 1, 0) }
EOF
check "C = A * B' (texla_mat_matmul_nt)" o_nt.mtx 1e-6 <<'EOF'
BEGIN { mm_read("r_A.mtx", "A"); mm_read("r_D.mtx", "B"); expect_mul("A", "B", 0, 1) }
EOF
check "C = A * x (a vector)" o_Ax.mtx 1e-6 <<'EOF'
BEGIN { mm_read("r_A.mtx", "A"); mm_read("x.mtx", "B"); expect_mul("A", "B", 0, 0) }
EOF
check "A' (transpose)" o_At.mtx 0 <<'EOF'
BEGIN { mm_read("r_A.mtx", "A"); ER = C["A"]; EC = R["A"]; for (i = 0; i < ER; i++) for (j = 0; j < EC; j++) E[i, j] = M["A", j, i] }
EOF
check "x' (a row vector)" o_xt.mtx 0 <<'EOF'
BEGIN { mm_read("x.mtx", "A"); ER = 1; EC = R["A"]; for (j = 0; j < EC; j++) E[0, j] = M["A", j, 0] }
EOF
check "A' * E' (both transposed)" o_tt.mtx 1e-6 <<'EOF'
BEGIN { mm_read("r_A.mtx", "A"); mm_read("r_E.mtx", "B"); expect_mul("A", "B", 1, 1) }
EOF

run 'A = rand(6, 5, 1)
B = rand(6, 5, 2)
save A "e_A.mtx"
save B "e_B.mtx"
save A + B "o_add.mtx"
save A - B "o_sub.mtx"
save A .* B "o_emul.mtx"
save 2.5 * A "o_scale.mtx"
save A * -0.5 "o_scale2.mtx"
save A / 4 "o_div.mtx"
save -A "o_neg.mtx"
save max(A, 0) "o_max.mtx"
save max(-0.25, B) "o_max2.mtx"
save A + 1 "o_addc.mtx"
save 1 - A "o_subc.mtx"
save (A + B) .* (A - B) "o_paren.mtx"
C = A                              # a copy
A = B                              # rebinding A leaves C alone
save C "o_copy.mtx"
save 2 + 3 * 4 - 10 / 4 "o_num.mtx"
save -2.5e-1 "o_neg_num.mtx"
'
[ $rc -eq 0 ] || fail "element-wise script: exit $rc" "$(cat err)"
for c in "o_add.mtx|A + B|A[i, j] + B[i, j]" "o_sub.mtx|A - B|A[i, j] - B[i, j]" \
         "o_emul.mtx|A .* B|A[i, j] * B[i, j]" "o_scale.mtx|2.5 * A|2.5 * A[i, j]" \
         "o_scale2.mtx|A * -0.5|-0.5 * A[i, j]" "o_div.mtx|A / 4|A[i, j] / 4" \
         "o_neg.mtx|-A|-A[i, j]" "o_max.mtx|max(A, 0)|(A[i, j] > 0 ? A[i, j] : 0)" \
         "o_max2.mtx|max(-0.25, B)|(B[i, j] > -0.25 ? B[i, j] : -0.25)" \
         "o_addc.mtx|A + 1|A[i, j] + 1" "o_subc.mtx|1 - A|1 - A[i, j]" \
         "o_paren.mtx|(A + B) .* (A - B)|(A[i, j] + B[i, j]) * (A[i, j] - B[i, j])" \
         "o_copy.mtx|C = A (a copy, then A rebound)|A[i, j]"; do
    f=${c%%|*}; r=${c#*|}; label=${r%%|*}; expr=${r#*|}
    check "$label" "$f" 1e-6 <<EOF
BEGIN { mm_read("e_A.mtx", "MA"); mm_read("e_B.mtx", "MB"); ER = 6; EC = 5
    for (i = 0; i < 6; i++) for (j = 0; j < 5; j++) { A[i, j] = M["MA", i, j]; B[i, j] = M["MB", i, j] }
    for (i = 0; i < 6; i++) for (j = 0; j < 5; j++) E[i, j] = $expr }
EOF
done
check "scalar arithmetic, precedence (2 + 3 * 4 - 10 / 4 = 11.5), saved 1 x 1" o_num.mtx 0 <<'EOF'
BEGIN { ER = 1; EC = 1; E[0, 0] = 11.5 }
EOF
check "negative numbers (-2.5e-1)" o_neg_num.mtx 0 <<'EOF'
BEGIN { ER = 1; EC = 1; E[0, 0] = -0.25 }
EOF

# dot, norm2, print, time
run 'a = rand(33, 1, 4)
b = rand(33, 1, 5)
save a "a.mtx"
save b "b.mtx"
print dot(a, b)
s = norm2(a)
print s
print sqrt(16) + rows(a) * 100 + cols(a)
M = load "A.mtx"
print M
time C = M * M'"'"'
print zeros(12, 11)'
[ $rc -eq 0 ] || fail "dot/norm2/print script: exit $rc" "$(cat err)"
d=$(sed -n 's/^dot(a, b) = //p' out); n=$(sed -n 's/^s = //p' out)
awk_ok "dot(a, b) = $d" <<EOF
BEGIN { mm_read("a.mtx", "a"); mm_read("b.mtx", "b"); s = 0
    for (i = 0; i < 33; i++) s += M["a", i, 0] * M["b", i, 0]
    e = ("$d" - s) / (s < 0 ? -s : s); if (e < 0) e = -e
    if ("$d" == "" || e > 1e-5) { print "expected", s; exit 1 } }
EOF
awk_ok "norm2(a) = $n (the squared norm), a scalar prints as a number" <<EOF
BEGIN { mm_read("a.mtx", "a"); s = 0
    for (i = 0; i < 33; i++) s += M["a", i, 0] * M["a", i, 0]
    e = ("$n" - s) / s; if (e < 0) e = -e
    if ("$n" == "" || e > 1e-5) { print "expected", s; exit 1 } }
EOF
grep -q '^sqrt(16) + rows(a) \* 100 + cols(a) = 3305$' out && pass "print of a scalar expression: sqrt, rows, cols" || fail "print scalar expression" "$(cat out)"
cat > want <<'EOF'
M = 3 x 4 dense matrix
     1     3     0    -3
    -2     4  2.25     1
   0.5    -1     7     8
EOF
sed -n '/^M = /,+3p' out > got
cmp -s want got && pass "print M: shape and values (row 0 first)" || fail "print M" "$(cat got)"
grep -Eq '^time: [0-9]+\.[0-9]{3} ms \(line 11: C = M \* M.\)$' out && pass "time STATEMENT: $(grep '^time' out)" || fail "time" "$(cat out)"
grep -q '^zeros(12, 11) = 12 x 11 dense matrix; the first 10 rows and 10 columns shown$' out &&
    [ "$(grep -c '  \.\.\.$' out)" -eq 10 ] && grep -q '^  \.\.\. (2 more rows)$' out &&
    pass "print truncates big matrices (10 x 10 shown)" || fail "print truncation" "$(cat out)"

# banded and sparse products, conversions, sums
cat > T.mtx <<'EOF'
%%MatrixMarket matrix coordinate real general
4 6 5
1 1 2
1 6 -1
2 3 4
4 2 0.5
4 6 3
EOF
run 'S = load "S.mtx"
Sb = load "S.mtx" as banded
T = load "T.mtx"
x = rand(5, 1, 9)
y = rand(6, 1, 10)
save x "x.mtx"
save y "y.mtx"
save S * x "o_Sx.mtx"              # texla_sparse_matvec through 2D vectors
save Sb * x "o_Sbx.mtx"            # texla_banded_matvec
save T * y "o_Ty.mtx"              # a rectangular sparse matrix
save S'"'"' * x "o_Stx.mtx"
save Sb'"'"' * x "o_Sbtx.mtx"
save x'"'"' * S "o_xtS.mtx"
save x'"'"' * Sb "o_xtSb.mtx"
save S + Sb "o_SpSb.mtx"
save Sb - Sb'"'"' "o_SbmSbt.mtx"
save S - 2 * S "o_SmS.mtx"
save S + eye(5) "o_Spe.mtx"
save dense(Sb) "o_dense.mtx"
save banded(dense(S)) "o_banded.mtx"
save sparse(Sb) "o_sparse.mtx"
save S .* S "o_SeS.mtx"
save max(S, 0.3) "o_maxS.mtx"
print banded(dense(S))
print transpose(T)'
[ $rc -eq 0 ] || fail "banded/sparse script: exit $rc" "$(cat err)"
for c in "o_Sx.mtx|S * x (sparse)|S|x|0|0" "o_Sbx.mtx|Sb * x (banded)|S|x|0|0" "o_Ty.mtx|T * y (4 x 6 sparse)|T|y|0|0" \
         "o_Stx.mtx|S' * x (sparse transpose)|S|x|1|0" "o_Sbtx.mtx|Sb' * x (banded transpose)|S|x|1|0" \
         "o_xtS.mtx|x' * S (a row vector)|x|S|1|0" "o_xtSb.mtx|x' * Sb (a row vector, banded)|x|S|1|0"; do
    IFS='|' read -r f label a b ta tb <<EOF
$c
EOF
    check "$label" "$f" 1e-6 <<EOF
BEGIN { mm_read("S.mtx", "S"); mm_read("T.mtx", "T"); mm_read("x.mtx", "x"); mm_read("y.mtx", "y"); expect_mul("$a", "$b", $ta, $tb) }
EOF
done
for c in "o_SpSb.mtx|S + Sb (sparse + banded)|2 * S[i, j]" "o_SbmSbt.mtx|Sb - Sb' (banded)|S[i, j] - S[j, i]" \
         "o_SmS.mtx|S - 2 * S (sparse)|-S[i, j]" "o_Spe.mtx|S + eye(5) (sparse + dense)|S[i, j] + (i == j)" \
         "o_dense.mtx|dense(Sb)|S[i, j]" "o_banded.mtx|banded(dense(S))|S[i, j]" "o_sparse.mtx|sparse(Sb)|S[i, j]" \
         "o_SeS.mtx|S .* S|S[i, j] * S[i, j]" "o_maxS.mtx|max(S, 0.3)|(S[i, j] > 0.3 ? S[i, j] : 0.3)"; do
    f=${c%%|*}; r=${c#*|}; label=${r%%|*}; expr=${r#*|}
    check "$label" "$f" 1e-6 <<EOF
BEGIN { mm_read("S.mtx", "MS"); ER = 5; EC = 5
    for (i = 0; i < 5; i++) for (j = 0; j < 5; j++) S[i, j] = M["MS", i, j]
    for (i = 0; i < 5; i++) for (j = 0; j < 5; j++) E[i, j] = $expr }
EOF
done
grep -q '^banded(dense(S)) = 5 x 5 banded matrix (4 diagonals), offsets -2 0 1 4$' out && pass "banded(dense(S)): diagonals of a dense matrix" || fail "banded(dense(S))" "$(cat out)"
grep -q '^transpose(T) = 6 x 4 sparse matrix (5 entries)$' out && pass "transpose(T) of a sparse matrix" || fail "transpose(T)" "$(cat out)"

# x' * S of a long vector x and a sparse S (n x 1, n x 3) is (S' x)': x' is never formed (a
# 1 x 70000 dense matrix is past the GL's texture size; x and S' x are not)
awk 'BEGIN { n = 70000; print "%%MatrixMarket matrix coordinate real general"; print n, 3, 2 * n
    for (i = 1; i <= n; i++) { print i, 1 + i % 3, i % 7 - 3; print i, 1 + i * 5 % 3, i % 11 / 4 } }' > S703.mtx
run 'x = rand(70000, 1, 4)
save x "x7.mtx"
S = load "S703.mtx"
save x'"'"' * S "o_xtS703.mtx"
o = ones(70000, 1)
print o'"'"' * sparse(o)'
[ $rc -eq 0 ] && grep -q "^o' \\* sparse(o) = 1 x 1 vector$" out && grep -q '^  70000$' out &&
    pass "x' * sparse(x) of 70000 ones: 1 x 1, 70000" || fail "x' * S, 70000 x 1: exit $rc" "$(cat out err)"
check "x' * S, 70000 x 3 sparse with duplicates" o_xtS703.mtx 1e-5 <<'EOF'
BEGIN { mm_read("x7.mtx", "x"); mm_read("S703.mtx", "S"); expect_mul("x", "S", 1, 0) }
EOF
rm -f S703.mtx x7.mtx o_xtS703.mtx

# a 1 x 1 value (vector, dense, sparse, banded) is a number wherever a number is expected
run 'x = ones(3, 1)
r = x'"'"' * x
print x / r
print sqrt(x'"'"' * x)
print 6 / sparse(3 * ones(1, 1)), 6 / poisson(1, 1, 0, 1), 2 / r
k = 2 * ones(1, 1)
A = rand(3, 3, 1)
print A(k, sparse(ones(1, 1))), zeros(k, r)
png A "k.png" scale k range -r r
u = cg(eye(1), ones(1, 1))
v = cg(sparse(4 * ones(1, 1)), 2 * ones(1, 1), 1e-6)
print u, v'
cat > want.txt <<'EOF'
x / r = 3 x 1 vector
  0.333333
  0.333333
  0.333333
sqrt(x' * x) = 1.73205081
2 1.5 0.666666667
-0.590752482 2 x 3 dense matrix
  0  0  0
  0  0  0
1 x 1 vector 1 x 1 vector
  1
  0.5
EOF
if [ "$rc" -eq 0 ] && cmp -s out want.txt && [ "$(png_info k.png)" = "6 6" ]; then
    pass "1 x 1 values as numbers: x / (x' * x), sqrt(x' * x), divisors, indices, sizes, png scale and range, cg of a 1 x 1 A"
else
    fail "1 x 1 values as numbers: exit $rc" "$(cat out err)"
fi
rm -f want.txt k.png
expect_error "a 2 x 1 divisor is not a number" 1 's.tx:1:16: error: division: the divisor must be a number, not a 2 x 1 vector$' 'x = ones(3, 1) / ones(2, 1)'

# solvers: cg with dense, banded and sparse A; lcp with dense and sparse A
run 'P = poisson(12, 10)
save P "P.mtx"
b = rand(120, 1, 21)
save b "b.mtx"
u = cg(P, b)
save u "o_u.mtx"
print u
Q = poisson(4, 3, 1, 0.5)          # I + 0.5 P
save Q "Q.mtx"
save Q * ones(12, 1) "o_Q1.mtx"
S = load "Sym.mtx"
c = load "v5.mtx"
c4 = rand(4, 1, 2)
save c4 "c4.mtx"
save cg(S, c4, 1e-5) "o_cgS.mtx"
save cg(dense(S), c4, 1e-5, 50) "o_cgD.mtx"
save cg(P, b, 0, 200) "o_cg_fixed.mtx"
K = 4 * eye(6) + 0.5 * ones(6, 6)     # diagonally dominant: Jacobi converges
q = rand(6, 1, 3)
save K "K.mtx"
save q "q.mtx"
save lcp(K, q) "o_lcp.mtx"
save lcp(K, q, 300, 0.8) "o_lcp2.mtx"
save lcp(sparse(K), q, 50) "o_lcp3.mtx"'
[ $rc -eq 0 ] || fail "solver script: exit $rc" "$(cat err)"
grep -q '^u = 120 x 1 vector (12 x 10 grid); the first 10 rows shown$' out && pass "cg on a banded matrix keeps its grid" || fail "cg grid" "$(cat out)"
grep -Eq '^s.tx:5: cg: converged: [0-9]+ iterations, relative residual [0-9.e-]+ \(tolerance 0.0001\)$' err && pass "cg reports iterations and residual: $(grep ':5: cg' err)" || fail "cg report" "$(cat err)"
grep -Eq '^s.tx:17: cg: 200 iterations \(fixed count' err && pass "cg(A, b, 0, MAXIT): fixed iterations" || fail "cg fixed" "$(cat err)"
grep -Eq '^s.tx:22: lcp: solved: 100 iterations \(omega 1\): min x .*\(tolerance 0.0001 of the scale [0-9.e+-]+\)$' err && grep -Eq '^s.tx:23: lcp: solved: 300 iterations \(omega 0.8\)' err && pass "lcp reports its measures: $(grep ':22: lcp' err)" || fail "lcp report" "$(cat err)"
# residuals computed on the CPU from the saved A, b and x
for c in "P.mtx|b.mtx|o_u.mtx|cg(P, b) on poisson(12, 10) (banded)|2e-4" "Sym.mtx|c4.mtx|o_cgS.mtx|cg(S, b, 1e-5) (sparse)|1e-4" \
         "Sym.mtx|c4.mtx|o_cgD.mtx|cg(dense(S), b, 1e-5, 50) (dense)|1e-4" "P.mtx|b.mtx|o_cg_fixed.mtx|cg(P, b, 0, 200) (fixed iterations)|1e-3"; do
    IFS='|' read -r fa fb fx label tol <<EOF
$c
EOF
    awk_ok "$label: ||b - A x|| / ||b|| <= $tol" <<EOF
BEGIN { mm_read("$fa", "A"); mm_read("$fb", "b"); mm_read("$fx", "x"); n = R["A"]; num = 0; den = 0
    for (i = 0; i < n; i++) { s = M["b", i, 0]; for (j = 0; j < n; j++) s -= M["A", i, j] * M["x", j, 0]; num += s * s; den += M["b", i, 0] ^ 2 }
    e = sqrt(num / den); if (e > $tol) { print "relative residual", e; exit 1 }; printf "%.2g", e }
EOF
done
check "poisson(4, 3, 1, 0.5) * ones: I + 0.5 P" o_Q1.mtx 1e-6 <<'EOF'
BEGIN { nx = 4; ny = 3; ER = 12; EC = 1
    for (k = 0; k < 12; k++) { x = k % nx; y = int(k / nx); E[k, 0] = 1 + 0.5 * (4 - (x > 0) - (x < nx - 1) - (y > 0) - (y < ny - 1)) } }
EOF
for f in o_lcp.mtx o_lcp2.mtx o_lcp3.mtx; do
    awk_ok "lcp ($f): x >= 0, w = K x + q >= 0, x'w = 0" <<EOF
BEGIN { mm_read("K.mtx", "K"); mm_read("q.mtx", "q"); mm_read("$f", "x"); n = 6; gap = 0; minw = 1; minx = 1
    for (i = 0; i < n; i++) { w = M["q", i, 0]; for (j = 0; j < n; j++) w += M["K", i, j] * M["x", j, 0]
        if (w < minw) minw = w; if (M["x", i, 0] < minx) minx = M["x", i, 0]; gap += (M["x", i, 0] * w < 0 ? -1 : 1) * M["x", i, 0] * w }
    if (minx < 0 || minw < -1e-4 || gap > 1e-4) { print "min x", minx, "min w", minw, "|x.*w|", gap; exit 1 }
    printf "min w %.2g, |x.*w| %.2g", minw, gap }
EOF
done

# png: every kind, the options, image sizes from the header; a gray16 round trip
run 'A = load "A.mtx"
png A "p_A.png"
png A "p_A4.png" scale 4
png A "p_Araw.png" raw
png A "p_Agray.png" map gray range -4 9
png A "p_A16.png" map gray16
png A "p_Adiv.png" map diverging
png A "p_Avir.png" map viridis scale 2
B = load "p_A16.png"               # a .png loads as a dense matrix
save B "o_A16.mtx"
v = grid(rand(15, 1, 1), 5, 3)
png v "p_v.png"
png v "p_vraw.png" raw
png poisson(4, 3) "p_P.png"
png load "S.mtx" "p_S.png"
png 2.5 "p_s.png"
png dot(v, v) "p_dot.png"'
[ $rc -eq 0 ] || fail "png script: exit $rc" "$(cat err)"
is_png "png A (logical: 4 x 3)" p_A.png 4 3
is_png "png A scale 4" p_A4.png 16 12
is_png "png A raw (4x1 texels: 4 x 4)" p_Araw.png 4 4
is_png "png A map gray range -4 9" p_Agray.png 4 3
is_png "png A map gray16" p_A16.png 4 3
is_png "png A map diverging" p_Adiv.png 4 3
is_png "png A map viridis scale 2" p_Avir.png 8 6
is_png "png of a grid vector: its 5 x 3 grid" p_v.png 5 3
is_png "png of a grid vector, raw (2x2 texels, even grid 6 x 4)" p_vraw.png 6 4
is_png "png of a banded matrix (5 diagonals of a 4 x 3 grid, stacked)" p_P.png 4 15
is_png "png of a sparse matrix (its 5 x 5 pattern)" p_S.png 5 5
is_png "png of a scalar" p_s.png 1 1
is_png "png of an expression" p_dot.png 1 1
grep -aq 'texla:range' p_A16.png && grep -aq 'texla:map' p_A16.png && pass "png text chunks (texla:range, texla:map)" || fail "png text chunks"
check "png map gray16 round trip (load \"x.png\"), within the 16-bit quantisation" o_A16.mtx 1e-4 <<'EOF'
BEGIN { mm_read("A.mtx", "A"); expect_mat("A") }
EOF

# standard input, relative load paths, ';' and comments
printf 'x = 2 * 3; print x   # a comment\nprint x - 1\n' | "$T" run - > out 2> err; rc=$?
[ $rc -eq 0 ] && [ "$(cat out)" = "x = 6
x - 1 = 5" ] && pass "run - (standard input), ';' between statements, comments" || fail "stdin: exit $rc" "$(cat out err)"
printf 'x = y\n' | "$T" run - > out 2> err; rc=$?
[ $rc -eq 1 ] && grep -qx "<stdin>:1:5: error: unknown variable 'y'" err && pass "errors in standard input name <stdin>" || fail "stdin error: exit $rc" "$(cat err)"
mkdir -p sub/dir && cp A.mtx sub/dir/m.mtx
printf 'M = load "m.mtx"\nsave M "o_rel.mtx"\n' > sub/dir/rel.tx
"$T" run sub/dir/rel.tx > out 2> err; rc=$?
[ $rc -eq 0 ] && [ -f o_rel.mtx ] && [ ! -e sub/dir/o_rel.mtx ] && pass "load reads relative to the script's folder, save writes to the current one" || fail "relative paths: exit $rc" "$(cat err)"

# ---- errors: FILE:LINE:COLUMN, the message, exit 1 ----
expect_error "unknown variable" 1 "s.tx:2:9: error: unknown variable 'B'\$" 'A = 1
C = A + B'
expect_error "shape mismatch names both shapes" 1 's.tx:3:7: error: shape mismatch: 2 x 3 dense matrix * 2 x 2 dense matrix (inner dimensions 3 and 2 differ)$' 'A = ones(2, 3)
B = ones(2, 2)
C = A * B'
expect_error "shape mismatch in a sum" 1 's.tx:1:16: error: shape mismatch: 2 x 3 dense matrix + 3 x 2 dense matrix$' 'C = ones(2, 3) + ones(3, 2)'
expect_error "shape mismatch: sparse times a vector" 1 's.tx:2:7: error: shape mismatch: 5 x 5 sparse matrix (13 entries) * 4 x 1 vector (inner dimensions 5 and 4 differ)$' 'S = load "S.mtx"
y = S * ones(4, 1)'
expect_error "bad number" 1 "s.tx:1:9: error: bad number '1.2.3'\$" 'x = 2 + 1.2.3'
expect_error "bad number (letters glued on)" 1 "s.tx:1:5: error: bad number '3abc'\$" 'x = 3abc'
expect_error "bad number (no exponent digits)" 1 "s.tx:1:5: error: bad number '1e'\$" 'x = 1e'
expect_error "number out of range" 1 "s.tx:1:5: error: bad number '1e999' (out of range)\$" 'x = 1e999'
expect_error "unterminated string" 1 's.tx:2:8: error: unterminated string' 'A = ones(2, 2)
save A "a.mtx'
expect_error "file not found" 1 's.tx:1:5: error: load "nofile.mtx": nofile.mtx: cannot open for reading: No such file or directory$' 'A = load "nofile.mtx"'
printf '%%%%MatrixMarket matrix coordinate real general\n%% a comment\n3 3 3\n1 1 1.0\n2 2 2.0\n2 x 1\n' > bad.mtx
expect_error "malformed Matrix Market file: its own line" 1 's.tx:3:5: error: load "bad.mtx": bad.mtx:6: ' 'A = ones(2, 2)
# the file breaks on its line 6
B = load "bad.mtx"'
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n' > short.mtx
expect_error "Matrix Market file too short" 1 's.tx:1:5: error: load "short.mtx": short.mtx:' 'A = load "short.mtx"'
expect_error "wrong argument count" 1 's.tx:1:5: error: rand: expected 2 or 3 arguments (R, C[, SEED]), got 1$' 'A = rand(4)'
expect_error "wrong argument count (cg)" 1 's.tx:1:5: error: cg: expected 2 to 4 arguments (A, b[, TOL[, MAXIT]]), got 1$' 'x = cg(eye(3))'
expect_error "wrong argument type (a matrix for a number)" 1 's.tx:1:14: error: zeros: C must be a number, not a 2 x 2 dense matrix$' 'A = zeros(3, ones(2, 2))'
expect_error "wrong argument type (not an integer)" 1 's.tx:1:13: error: rand: C must be an integer from 1 to 2147483647, not 2.5$' 'A = rand(2, 2.5, 1)'
expect_error "wrong argument type (a matrix for a vector)" 1 's.tx:1:16: error: cg: b must be an n x 1 vector, not a 3 x 3 dense matrix$' 'x = cg(eye(3), eye(3))'
expect_error "unknown function" 1 "s.tx:1:5: error: unknown function 'foo'" 'A = foo(1)'
expect_error "syntax: missing ')'" 1 "s.tx:1:11: error: expected ')' to close the '(' at column 5, found the end of the line\$" 'A = (1 + 2'
expect_error "syntax: two values" 1 "s.tx:1:7: error: expected the end of the statement, found number '2'\$" 'A = 1 2'
expect_error "syntax: unexpected character" 1 "s.tx:1:7: error: unexpected character '@'\$" 'A = 1 @ 2'
expect_error "syntax: not a statement" 1 "s.tx:1:1: error: expected a statement" '= 3'
expect_error "syntax: a keyword as a value" 1 "s.tx:1:5: error: 'print' is a keyword" 'A = print'
expect_error "png: unknown option" 1 "s.tx:1:24: error: png: unknown option 'foo'" 'png ones(3, 3) "x.png" foo'
expect_error "png: unknown map" 1 "s.tx:1:28: error: png: map: expected gray, viridis, diverging, gray16 or auto, found 'jet'\$" 'png ones(3, 3) "x.png" map jet'
expect_error "division by zero" 1 's.tx:1:13: error: division by zero$' 'A = ones(2) / 0'
expect_error "lcp on a non-square matrix" 1 's.tx:1:5: error: shape mismatch: lcp needs a square A' 'x = lcp(ones(3, 2), ones(3, 1))'
expect_error "lcp: a big sparse matrix is not made dense" 1 's.tx:2:5: error: lcp (projected Jacobi needs a dense A): the 10000 x 10000 sparse matrix' 'S = sparse(poisson(100, 100))
x = lcp(S, ones(10000, 1))'
expect_error "banded times a dense matrix is refused" 1 's.tx:1:19: error: not supported: 12 x 12 banded matrix (5 diagonals) * 12 x 2 dense matrix' 'A = poisson(3, 4) * ones(12, 2)'
expect_error "a variable cannot take a function's name" 1 "s.tx:2:1: error: 'max' is the name of a function; a variable needs another name\$" 'x = 1
max = 2'
expect_error "time of a failing statement" 1 "s.tx:1:10: error: unknown variable 'z'\$" 'time x = z'

# ---- hostile scripts: each answered by exit status and message, in < 2 s and < 200 MB ----
# bounded LABEL STATUS MESSAGE FILE: runs texla on FILE under /usr/bin/time when there is one
# (CPU time and peak memory checked: the CPU time is the work texla did, where the wall clock of
# this shared machine also measures its neighbours; the wall clock is printed), else with the
# wall clock only; MESSAGE as for expect_error. Both bounds are on what the script costs beyond
# the start-up of texla itself (a script of `x = 1`, measured first: the GL driver's own
# footprint, and under AddressSanitizer its shadow memory and slower start, are not the
# script's).
echo 'x = 1' > h_base.tx
base_ms=0 base_kb=0
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%U %S %M' -o res.txt "$T" run h_base.tx > /dev/null 2>&1
    base_ms=$(tail -n 1 res.txt | awk '{ print int(1000 * ($1 + $2)) }')
    base_kb=$(tail -n 1 res.txt | awk '{ print $3 }')
    echo "   (start-up of texla here: CPU $base_ms ms, $((base_kb / 1024)) MB)"
fi
bounded() {
    t0=$(date +%s%N)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%U %S %M' -o res.txt "$T" run "$4" > out 2> err; rc=$?
    else
        "$T" run "$4" > out 2> err; rc=$?; echo "0 0 0" > res.txt
    fi
    wall=$((($(date +%s%N) - t0) / 1000000))
    ms=$(tail -n 1 res.txt | awk -v w="$wall" '{ print ($1 + $2 > 0 || $3 > 0) ? int(1000 * ($1 + $2)) : w }')
    kb=$(tail -n 1 res.txt | awk '{ print $3 }')
    case $3 in
    *'$') want=${3%?}; line=$(grep -F -x -- "$want" err) ;;
    '') line=ok; [ -s err ] && line= ;;
    *) line=$(awk -v p="$3" 'index($0, p) == 1' err) ;;
    esac
    if [ "$rc" -eq "$2" ] && [ -n "$line" ] && [ $((ms - base_ms)) -lt 2000 ] &&
       [ $((kb - base_kb)) -lt 204800 ]; then
        pass "$1: exit $rc, CPU $ms ms (wall $wall ms), $((kb / 1024)) MB${3:+: $(head -n 1 err | cut -c1-110)}"
    else
        fail "$1: exit $rc (expected $2), CPU $ms ms (< $base_ms + 2000; wall $wall ms), $kb KB (< $base_kb + 204800)" "stderr: $(head -c 600 err)
expected: $3"
    fi
}
awk 'BEGIN { printf "x = "; for (i = 0; i < 40000; i++) printf "("; printf "1"; for (i = 0; i < 40000; i++) printf ")"; print "" }' > h_paren.tx
bounded "40000 nested parentheses" 1 'h_paren.tx:1:261: error: expression nested too deeply (more than 256 levels of parentheses and calls)$' h_paren.tx
awk 'BEGIN { printf "x = "; for (i = 0; i < 300; i++) printf "sqrt("; printf "1"; for (i = 0; i < 300; i++) printf ")"; print "" }' > h_calls.tx
bounded "300 nested calls" 1 'h_calls.tx:1:1285: error: expression nested too deeply' h_calls.tx
awk 'BEGIN { printf "x = 1"; for (i = 1; i < 100000; i++) printf " + 1"; print ""; print "print x" }' > h_sum.tx
bounded "a flat sum of 100000 terms works" 0 '' h_sum.tx
[ "$(cat out)" = "x = 100000" ] && pass "the sum of 100000 ones is 100000" || fail "flat sum" "$(cat out)"
awk 'BEGIN { printf "y = 3\nx = "; for (i = 0; i < 1000000; i++) printf "-"; print "2"; printf "z = "; for (i = 0; i < 999999; i++) printf "-"; print "y"; print "print x"; print "print z" }' > h_neg.tx
bounded "a million unary minuses" 0 '' h_neg.tx
[ "$(cat out)" = "x = 2
z = -3" ] && pass "an even run of minuses is +, an odd one -" || fail "unary minuses" "$(cat out)"
awk -v q="'" 'BEGIN { printf "A = rand(2, 3, 1)\nB = A"; for (i = 0; i < 1000001; i++) printf "%s", q; print ""; print "save B \"o_ht.mtx\""; print "save A \"o_hA.mtx\"" }' > h_tr.tx
bounded "a million and one transposes" 0 '' h_tr.tx
check "A followed by 1000001 quotes is A'" o_ht.mtx 0 <<'EOF'
BEGIN { mm_read("o_hA.mtx", "A"); ER = 3; EC = 2; for (i = 0; i < 3; i++) for (j = 0; j < 2; j++) E[i, j] = M["A", j, i] }
EOF
awk 'BEGIN { printf "x = rand(1"; for (i = 1; i < 40000; i++) printf ", 1"; print ")" }' > h_args.tx
bounded "a call with 40000 arguments: its arity, before anything runs" 1 'h_args.tx:1:5: error: rand: expected 2 or 3 arguments (R, C[, SEED]), got 40000$' h_args.tx
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "time "; print "x = 1" }' > h_time.tx
bounded "time time ..." 1 'h_time.tx:1:6: error: time: a time statement cannot be timed again$' h_time.tx

# sizes past the GL's limits are refused before any host memory is taken (issue 13, defect 5)
echo 'x = rand(1e9, 2)' > h_r2.tx
bounded "rand(1e9, 2): the 4x1 layout's limit, named" 1 'h_r2.tx:1:5: error: making a matrix: texla_mat_make: a 1000000000 x 2 matrix needs a 2 x 250000000 texture; this GL allows at most ' h_r2.tx
echo 'x = rand(2147483647, 1)' > h_r1.tx
bounded "rand(2147483647, 1): the 2D layout's limit, named" 1 'h_r1.tx:1:5: error: making a vector: texla_vec_make: 2147483647 elements need 536870912 texels; this GL allows at most ' h_r1.tx
echo 'x = rand(1e9, 1)' > h_r3.tx
bounded "rand(1e9, 1): the GL's answer comes before the host array" 1 'h_r3.tx:1:5: error: making a vector: ' h_r3.tx
echo 'P = poisson(33000, 5000)' > h_p.tx
bounded "poisson(33000, 5000): the grid's texture limit, named" 1 'h_p.tx:1:5: error: poisson: texla_banded_poisson: a 33000 x 5000 grid needs a 16500 x 2500 texture; this GL allows at most ' h_p.tx
printf '%%%%MatrixMarket matrix coordinate real general\n500000000 500000000 1\n1 1 1.0\n' > big.mtx
echo 'A = load "big.mtx" as banded' > h_b.tx
bounded "a 76-byte .mtx of 500000000 x 500000000 as banded" 1 'h_b.tx:1:5: error: load "big.mtx": 1 diagonal of 500000000 elements is too many for a banded matrix (at most 67108864 elements); use a sparse one$' h_b.tx
echo 'A = load "big.mtx" as dense' > h_bd.tx
bounded "the same file as dense" 1 'h_bd.tx:1:5: error: load "big.mtx": the 500000000 x 500000000 sparse matrix (1 entry) would need 250000000000000000 elements as a dense matrix (at most 67108864 are converted)$' h_bd.tx

# ---- vectors of any length the 2D layout holds (issue 10): 2^20 rows, a sparse matrix of 2^20 rows ----
cat > tall.mtx <<'EOF'
%%MatrixMarket matrix coordinate real general
1048576 1048576 3
1 1048576 2
1048576 1 -1
524288 524288 0.5
EOF
run 'x = rand(1048576, 1, 5)
P = poisson(1024, 1024)
y = P * x                          # banded times a vector of 2^20 (the 4x1 layout stops at 65536)
z = sparse(P) * x                  # a sparse matrix of 2^20 rows
print "diff", norm2(y - z), "ref", norm2(y)
print "size", size(x, 1), size(y, 1)
print "sum", sum(ones(4194304, 1))
T = load "tall.mtx"
t = T * x
print "tall", t(1), t(524288), t(1048576), "x", x(1), x(524288), x(1048576)
w = x + 2 * x - x .* x
print "ew", w(777777), x(777777)
save x "o_lx.mtx"
save y "o_ly.mtx"
v = load "o_lx.mtx"
print "back", norm2(v - x)'
[ $rc -eq 0 ] || fail "long vectors: exit $rc" "$(cat err)"
awk_ok "P * x and sparse(P) * x agree on 2^20 rows ($(grep '^diff' out))" <<EOF
BEGIN { split("$(grep '^diff' out)", f, " "); if (f[2] > 1e-10 * f[4] || f[4] <= 0) { print "diff", f[2], "of", f[4]; exit 1 } }
EOF
grep -qx 'size 1048576 1048576' out && grep -qx 'sum 4194304' out && pass "2^20-row vectors; ones(4194304, 1) sums to 4194304" || fail "long vector sizes" "$(cat out)"
awk_ok "a 2^20 x 2^20 sparse matrix from a file times a 2^20 vector ($(grep '^tall' out))" <<EOF
BEGIN { split("$(grep '^tall' out)", f, " ")
    e = (f[2] - 2 * f[8]) ^ 2 + (f[3] - 0.5 * f[7]) ^ 2 + (f[4] + f[6]) ^ 2; if (e > 1e-16) { print "t(1)", f[2], "t(524288)", f[3], "t(n)", f[4]; exit 1 } }
EOF
awk_ok "x + 2x - x.*x on 2^20 elements ($(grep '^ew' out))" <<EOF
BEGIN { split("$(grep '^ew' out)", f, " "); x = f[3]; e = 3 * x - x * x - f[2]; if (e < 0) e = -e; if (e > 1e-6) { print "got", f[2], "for x", x; exit 1 } }
EOF
grep -qx 'back 0' out && pass "save and load of a 2^20-row vector: the same vector" || fail "long vector save/load" "$(cat out)"
awk_ok "y = poisson(1024, 1024) * x on all 2^20 rows against awk" <<'EOF'
BEGIN { n = 1024; k = -1
    while ((getline line < "o_lx.mtx") > 0) { if (line ~ /^%/) continue; if (k < 0) { k = 0; continue }; X[k++] = line + 0 }
    k = -1; bad = 0; worst = 0
    while ((getline line < "o_ly.mtx") > 0) { if (line ~ /^%/) continue; if (k < 0) { k = 0; continue }
        i = k % n; j = int(k / n); s = 4 * X[k]
        if (i > 0) s -= X[k - 1]; if (i < n - 1) s -= X[k + 1]; if (j > 0) s -= X[k - n]; if (j < n - 1) s -= X[k + n]
        e = line - s; if (e < 0) e = -e; if (e > worst) worst = e; k++ }
    if (k != n * n || worst > 1e-5) { print k, "rows, worst", worst; exit 1 }; printf "worst |error| %.2g", worst }
EOF

# ---- the language's basics (issue 14): reductions, element-wise functions, sizes, elements ----
run 'A = load "A.mtx"
x = load "v5.mtx"
S = load "S.mtx"
print "A", sum(A), norm(A), norm2(A), maxabs(A), min(A), max(A)
print "x", sum(x), min(x), max(x), norm2(x), dot(x, x)
print "S", sum(S), min(S), max(S), maxabs(S), norm2(S), S(1, 1), S(1, 5), S(2, 1)
print "B", sum(banded(S)), min(banded(S)), max(-banded(S))
print "size", size(A, 1), size(A, 2), size(x, 1), rows(A), cols(x)
print "elements", A(1, 1), A(3, 4), A(2, 3), x(2), x(5), A(1, 4)
print size(A)
print "numbers", abs(-2.5), min(3, 4), max(3, 4), sum(7), norm(-3)
print "just text"
save abs(A) "o_abs.mtx"
save abs(-S) "o_absS.mtx"
save min(A, 0) "o_min0.mtx"
save max(1, A) "o_max1.mtx"
save min(A, A * 0 + 2) "o_minAB.mtx"
save max(A, -A) "o_maxAB.mtx"
save clamp(A, -1, 2) "o_clamp.mtx"
save recip(A + 10, 2) "o_recip.mtx"
save madad(A, A, A, A) "o_madad.mtx"'
[ $rc -eq 0 ] || fail "basics script: exit $rc" "$(cat err)"
awk_ok "reductions of a dense matrix: $(grep '^A ' out)" <<EOF
BEGIN { split("$(grep '^A ' out)", f, " ")
    want[2] = 20.75; want[3] = sqrt(159.3125); want[4] = 159.3125; want[5] = 8; want[6] = -3; want[7] = 8
    for (i = 2; i <= 7; i++) { e = f[i] - want[i]; if (e < 0) e = -e; if (e > 1e-5 * (want[i] < 0 ? -want[i] : want[i])) { print "item", i, f[i], "expected", want[i]; exit 1 } } }
EOF
grep -qx 'x 1 -2 3 16.5 16.5' out && pass "reductions of a vector: $(grep '^x ' out)" || fail "vector reductions" "$(grep '^x ' out)"
grep -qx 'S 34.875 -3 9 9 294.328125 5 9 0' out && pass "reductions and elements of a sparse matrix (duplicates summed, zeros counted): $(grep '^S ' out)" || fail "sparse reductions" "$(grep '^S ' out)"
grep -qx 'B 34.875 -3 3' out && pass "reductions of a banded matrix: $(grep '^B ' out)" || fail "banded reductions" "$(grep '^B ' out)"
grep -qx 'size 3 4 5 3 1' out && grep -qx 'elements 1 8 2.25 -2 -1.5 -3' out && pass "size, rows, cols and element reads (from 1)" || fail "size/elements" "$(cat out)"
grep -A1 -x 'size(A) = 1 x 2 dense matrix' out | grep -qx '  3  4' && pass "size(A) is the 1 x 2 matrix [rows cols]" || fail "size(A)" "$(cat out)"
grep -qx 'numbers 2.5 3 4 7 3' out && grep -qx 'just text' out && pass "print \"text\", values: numbers inline" || fail "print items" "$(cat out)"
for c in "o_abs.mtx|abs(A)|(A[i, j] < 0 ? -A[i, j] : A[i, j])" "o_min0.mtx|min(A, 0)|(A[i, j] < 0 ? A[i, j] : 0)" \
         "o_max1.mtx|max(1, A)|(A[i, j] > 1 ? A[i, j] : 1)" "o_minAB.mtx|min(A, B) of two matrices|(A[i, j] < 2 ? A[i, j] : 2)" \
         "o_maxAB.mtx|max(A, -A)|(A[i, j] < 0 ? -A[i, j] : A[i, j])" "o_clamp.mtx|clamp(A, -1, 2)|(A[i, j] < -1 ? -1 : A[i, j] > 2 ? 2 : A[i, j])" \
         "o_recip.mtx|recip(A + 10, 2)|2 / (A[i, j] + 10)" "o_madad.mtx|madad(A, A, A, A)|A[i, j] + 2 * A[i, j] * A[i, j]"; do
    f=${c%%|*}; r=${c#*|}; label=${r%%|*}; expr=${r#*|}
    check "$label" "$f" 1e-6 <<EOF
BEGIN { mm_read("A.mtx", "MA"); ER = 3; EC = 4
    for (i = 0; i < 3; i++) for (j = 0; j < 4; j++) A[i, j] = M["MA", i, j]
    for (i = 0; i < 3; i++) for (j = 0; j < 4; j++) E[i, j] = $expr }
EOF
done
check "abs(-S) of a sparse matrix (duplicates summed first)" o_absS.mtx 0 <<'EOF'
BEGIN { mm_read("S.mtx", "MS"); ER = 5; EC = 5; for (i = 0; i < 5; i++) for (j = 0; j < 5; j++) E[i, j] = M["MS", i, j] < 0 ? -M["MS", i, j] : M["MS", i, j] }
EOF
expect_error "an element out of range" 1 's.tx:2:9: error: x(6): the index is out of range 1..5 (a 5 x 1 vector)$' 'x = load "v5.mtx"
print x(6)'
expect_error "an index that is not whole" 1 's.tx:2:12: error: A(...): an index must be a whole number, not a fraction$' 'A = ones(3, 3)
print A(1, 1.5)'
expect_error "a column out of range" 1 's.tx:2:12: error: A(2, 9): the column index is out of range 1..3 (a 3 x 3 dense matrix)$' 'A = ones(3, 3)
print A(2, 9)'
expect_error "three indices: found by the parser" 1 "s.tx:1:5: error: A(...) with 3 arguments: 'A' is not a function" 'x = A(1, 2, 3)'
expect_error "min of matrices of two shapes" 1 's.tx:1:5: error: shape mismatch: min of a 2 x 2 dense matrix and a 3 x 3 dense matrix$' 'x = min(ones(2, 2), ones(3, 3))'
expect_error "clamp with LO above HI" 1 's.tx:1:23: error: clamp: LO 2 is above HI 1$' 'x = clamp(ones(2, 2), 2, 1)'

# max, min and maxabs with NaN (numpy's rule): NaN whatever the storage; maxabs never negative
run 'N = recip(zeros(2, 2), 0)
M = recip(eye(3), 0) + eye(3)
print "N", max(N), min(N), maxabs(N)
print "M", max(M), min(M), maxabs(M), M(1, 1)
print "S", max(sparse(M)), min(sparse(M)), maxabs(sparse(M))
print "x", max(M * ones(3, 1)), min(M * ones(3, 1)), maxabs(M * ones(3, 1))'
nan_ok() { awk '{ if (NF < 4) exit 1; for (i = 2; i <= 4; i++) if (tolower($i) !~ /^-?nan$/) exit 1
                  if ($4 ~ /^-/) exit 1; if ($1 == "M" && $5 != 1) exit 1 }'; }
[ $rc -eq 0 ] && [ "$(grep -c '^[NMSx] ' out)" -eq 4 ] && grep '^[NMSx] ' out | nan_ok &&
    pass "max, min, maxabs of NaN data: NaN in dense, sparse and vector storage: $(grep '^[NMSx] ' out | tr '\n' ' ')" ||
    fail "max, min, maxabs of NaN data (1 on M's diagonal)" "$(cat out err)"

# ---- what the solvers say; --strict; residual plots; progress ----
run 'P = poisson(16, 16)
b = ones(256, 1)
u = cg(P, b, 1e-5, 3)
v = cg(P, b, 1e-9, 5000) history "h_cg.png"
w = cg(P, b, 1e-4) history "h_cg2.png"
K = 4 * eye(6) + 0.5 * ones(6, 6)
q = rand(6, 1, 3)
z = lcp(K, q, 2)
z2 = lcp(K, q) history "h_lcp.png"'
[ $rc -eq 0 ] || fail "solver outcomes script: exit $rc" "$(cat err)"
grep -Eq '^s.tx:3: cg: NOT converged \(iteration limit\): 3 iterations, relative residual [0-9.e-]+ \(tolerance 1e-05\)$' err && pass "cg says it hit the iteration limit: $(grep ':3: cg' err)" || fail "cg iteration limit" "$(cat err)"
grep -Eq '^s.tx:4: cg: NOT converged \(float32 stagnation\): [0-9]+ iterations, relative residual [0-9.e-]+, best [0-9.e-]+ at iteration [0-9]+ \(tolerance 1e-09\)$' err && pass "cg says float32 stagnated, with the best true residual: $(grep ':4: cg' err)" || fail "cg stagnation" "$(cat err)"
grep -Eq '^s.tx:5: cg: converged: [0-9]+ iterations' err && pass "cg says it converged" || fail "cg converged" "$(cat err)"
grep -Eq '^s.tx:8: lcp: NOT solved: 2 iterations \(omega 1\): min w [0-9.e+-]+ \([0-9.e+-]+ of the scale [0-9.e+-]+\), max \|x_i w_i\| .*; tolerance 0.0001$' err && pass "lcp says it is not solved: $(grep ':8: lcp' err | cut -c1-100)..." || fail "lcp not solved" "$(cat err)"
grep -Eq '^s.tx:9: lcp: solved: 100 iterations' err && pass "lcp says it is solved" || fail "lcp solved" "$(cat err)"
is_png "history \"h_cg.png\": the residual plot" h_cg.png 640 400
is_png "history \"h_cg2.png\"" h_cg2.png 640 400
is_png "history \"h_lcp.png\"" h_lcp.png 640 400
grep -aq 'cg: relative residual (tolerance 1e-09): float32 stagnation' h_cg.png && grep -aq 'points and [0-9]* dots' h_cg.png && pass "the cg plot's Description names the outcome; the true residuals are dots beside the recurrence's line" || fail "h_cg.png texts"
printf 'u = cg(poisson(16, 16), ones(256, 1), 1e-5, 3)\nsave u "never.mtx"\n' > st.tx
"$T" run --strict st.tx > out 2> err; rc=$?
[ $rc -eq 1 ] && [ ! -e never.mtx ] && grep -Eq '^st.tx:1:5: error: cg: NOT converged \(iteration limit\): 3 iterations, relative residual [0-9.e-]+ \(tolerance 1e-05\) \(--strict\)$' err && pass "--strict: an unconverged cg is an error: exit 1, $(cat err)" || fail "--strict cg: exit $rc" "$(cat err)"
printf 'x = lcp(4 * eye(6) + 0.5 * ones(6, 6), rand(6, 1, 3), 2)\n' > st2.tx
"$T" run --strict st2.tx > out 2> err; rc=$?
[ $rc -eq 1 ] && grep -q '^st2.tx:1:5: error: lcp: NOT solved: 2 iterations .* (--strict)$' err && pass "--strict: an unsolved lcp is an error: exit 1" || fail "--strict lcp: exit $rc" "$(cat err)"
printf 'x = cg(poisson(8, 8), ones(64, 1), 1e-4)\nprint sum(x) > 0\n' > st3.tx
printf 'x = cg(poisson(8, 8), ones(64, 1), 1e-4)\ny = lcp(4 * eye(6) + 0.5 * ones(6, 6), rand(6, 1, 3))\n' > st3.tx
"$T" run --strict st3.tx > out 2> err; rc=$?
[ $rc -eq 0 ] && pass "--strict with solves that reach their tolerance: exit 0" || fail "--strict solved: exit $rc" "$(cat err)"
expect_error "history of a fixed-count cg" 1 's.tx:1:51: error: history "hf.png": the solve read no residuals' 'x = cg(poisson(4, 4), ones(16, 1), 0, 10) history "hf.png"'
# a positive TOL or OMEGA that is 0 as a float would be texla's "0: fixed count" or "0: default"
expect_error "cg: a TOL that rounds to 0 in float32" 1 's.tx:1:36: error: cg: TOL 1e-50 rounds to 0 in float32, which means a fixed count of iterations; the smallest usable TOL is 1.40129846e-45$' 'x = cg(poisson(8, 8), ones(64, 1), 1e-50, 3) history "h50.png"'
[ ! -e h50.png ] && pass "cg: no plot of a refused TOL" || fail "cg: h50.png written for TOL 1e-50"
printf 'x = cg(poisson(8, 8), ones(64, 1), 1e-50, 3)\n' > st4.tx
"$T" run --strict st4.tx > out 2> err; rc=$?
[ $rc -eq 1 ] && grep -q '^st4.tx:1:36: error: cg: TOL 1e-50 rounds to 0 in float32' err && pass "--strict: TOL 1e-50 is refused, not run as a fixed count" || fail "--strict TOL 1e-50: exit $rc" "$(cat err)"
expect_error "cg: a TOL past float's range" 1 's.tx:1:36: error: cg: TOL 1e+39 is past the largest float, 3.40282347e+38$' 'x = cg(poisson(8, 8), ones(64, 1), 1e39, 3)'
run 'x = cg(poisson(8, 8), ones(64, 1), 1.40129846e-45, 3)'
[ $rc -eq 0 ] && grep -q '^s.tx:1: cg: NOT converged (iteration limit): 3 iterations, .*(tolerance 1.4013e-45)$' err && pass "cg: the smallest usable TOL runs in tolerance mode" || fail "cg TOL 1.4e-45: exit $rc" "$(cat err)"
expect_error "lcp: an OMEGA that rounds to 0 in float32" 1 's.tx:1:34: error: lcp: OMEGA 1e-50 rounds to 0 in float32, which means the default, 1; the smallest usable OMEGA is 1.40129846e-45$' 'x = lcp(eye(3), -ones(3, 1), 10, 1e-50)'
expect_error "history without a solver" 1 's.tx:1:7: error: history: this statement calls no solver (cg or lcp) whose residuals it could plot$' 'x = 1 history "h.png"'
[ ! -e hf.png ] && [ ! -e h.png ] && pass "no plot file from a refused history" || fail "history files left"
printf 'P = poisson(32, 32)\nx = cg(P, ones(1024, 1), 1e-6)\n' > pr.tx
"$T" run --progress pr.tx > out 2> err; rc=$?
[ $rc -eq 0 ] && grep -Eq '^pr.tx:2: cg: iteration [0-9]+ of 1024, residual [0-9.e-]+ \([0-9.]+ s\)$' err && pass "--progress: $(grep -c 'cg: iteration' err) progress lines on stderr, e.g. $(grep -m1 'cg: iteration' err)" || fail "--progress: exit $rc" "$(cat err)"
"$T" run pr.tx > out 2> err; rc=$?
[ $rc -eq 0 ] && ! grep -q 'cg: iteration' err && pass "no progress lines when stderr is not a terminal" || fail "progress off: exit $rc" "$(cat err)"
"$T" run --no-progress --progress --no-progress pr.tx > out 2> err; rc=$?
[ $rc -eq 0 ] && ! grep -q 'cg: iteration' err && pass "--no-progress (the last option wins)" || fail "--no-progress: exit $rc" "$(cat err)"

# ---- --backend: any script on a chosen backend ----
"$T" --backend compute info > out 2> err && grep -q '^default: *compute' out && pass "texla --backend compute info: the default backend is compute" || fail "--backend compute info" "$(cat out err)"
printf 'A = rand(37, 29, 1)\nx = rand(29, 1, 2)\ny = A * x + 0.5 * x(3)\nsave y "be_%s.mtx"\nprint sum(abs(A))\n' fragment > be_f.tx
printf 'A = rand(37, 29, 1)\nx = rand(29, 1, 2)\ny = A * x + 0.5 * x(3)\nsave y "be_%s.mtx"\nprint sum(abs(A))\n' compute > be_c.tx
"$T" --backend fragment run be_f.tx > out_f 2> err_f; rf=$?
"$T" run --backend compute be_c.tx > out_c 2> err_c; rcc=$?
[ $rf -eq 0 ] && [ $rcc -eq 0 ] && pass "--backend fragment and --backend compute run a script" || fail "--backend runs: $rf $rcc" "$(cat err_f err_c)"
check "--backend compute gives what --backend fragment gives (A x + s)" be_compute.mtx 1e-6 <<'EOF'
BEGIN { mm_read("be_fragment.mtx", "F"); expect_mat("F") }
EOF

# ---- png options from scripts; warnings for file names ----
run 'A = load "A.mtx"
S = load "S.mtx"
x = rand(300, 1, 1)
png x "p_plot.png" plot title "300 values"
png x "p_plot2.png" plot size 320 240
png abs(x) + 1e-3 "p_plotlog.png" plot log
png S "p_spy.png" spy
png S "p_spyc.png" spy colour scale 3
png A "p_bar.png" colorbar map viridis
png poisson(4, 3) "p_labels.png" labels
save A "p_A.txt"
png A "p_A.jpg"'
[ $rc -eq 0 ] || fail "png options script: exit $rc" "$(cat err)"
is_png "png x plot" p_plot.png 640 400
is_png "png x plot size 320 240" p_plot2.png 320 240
is_png "png plot log" p_plotlog.png 640 400
is_png "png S spy (5 x 5 at 2 pixels a dot)" p_spy.png 10 10
is_png "png S spy colour scale 3" p_spyc.png 15 15
wh=$(png_info p_bar.png); set -- $wh
[ "${2:-0}" -eq 128 ] && [ "${1:-0}" -gt 40 ] && pass "png A colorbar: $wh pixels (a bar beside the 4 x 3 picture)" || fail "png colorbar: $wh"
is_png "png poisson labels" p_labels.png
grep -q '^s.tx:11:8: warning: save writes a Matrix Market file; "p_A.txt" does not end in .mtx$' err && grep -q '^s.tx:12:7: warning: png writes a PNG image; "p_A.jpg" does not end in .png$' err && [ -f p_A.txt ] && [ -f p_A.jpg ] && pass "a file name that does not match what is written: a warning, and the file" || fail "extension warnings" "$(cat err)"
expect_error "png log without plot" 1 "s.tx:1:24: error: png: log is the value axis of a plot: add plot\$" 'png ones(3, 3) "x.png" log'
expect_error "png plot of a matrix" 1 's.tx:1:1: error: png "x.png": texla_png_mat: a line plot needs a vector' 'png ones(3, 3) "x.png" plot'

# a syntax error anywhere runs nothing
run 'save ones(2, 2) "early.mtx"
print 1
x = (1 +'
[ $rc -eq 1 ] && [ ! -e early.mtx ] && [ ! -s out ] && pass "a syntax error on line 3 runs nothing (exit 1, no output, no file)" || fail "syntax error ran something: exit $rc" "$(ls; cat out)"

# ---- no output file half-written ----
run 'save ones(2, 2) "nodir/x.mtx"'
[ $rc -eq 1 ] && [ ! -e nodir ] && grep -q '^s.tx:1:1: error: save "nodir/x.mtx": ' err && pass "save into a missing folder: exit 1, $(cat err)" || fail "save nodir: exit $rc" "$(cat err)"
mkdir isdir.mtx isdir.png
run 'save ones(2, 2) "isdir.mtx"'
[ $rc -eq 1 ] && [ -d isdir.mtx ] && pass "save over a folder fails: exit 1" || fail "save over a folder: exit $rc" "$(cat err)"
run 'png ones(2, 2) "isdir.png"'
[ $rc -eq 1 ] && [ -d isdir.png ] && pass "png over a folder fails: exit 1" || fail "png over a folder: exit $rc" "$(cat err)"
run 'save ones(3, 3) "keep.mtx"
png ones(3, 3) "keep.png"'
cp keep.mtx keep.mtx.orig; cp keep.png keep.png.orig
run 'A = ones(2, 2) * 1e38
B = A * 100                        # +Inf in float
save B "keep.mtx"'
[ $rc -eq 1 ] && grep -q '^s.tx:3:1: error: save "keep.mtx": .*inf' err && cmp -s keep.mtx keep.mtx.orig && pass "a failing save leaves the old file as it was ($(cat err))" || fail "failing save: exit $rc" "$(cat err)"
run 'save ones(2, 2) * 1e38 * 100 "inf.mtx"'
[ $rc -eq 1 ] && [ ! -e inf.mtx ] && pass "a failing save creates no file" || fail "inf.mtx: exit $rc" "$(cat err)"
run 'png ones(4, 4) "keep.png" range 1 0'
[ $rc -eq 1 ] && grep -q '^s.tx:1:33: error: png: range 1 0: LO must be below HI$' err && cmp -s keep.png keep.png.orig && pass "a failing png leaves the old file as it was" || fail "failing png: exit $rc" "$(cat err)"
run 'png ones(4, 4) "nodir/x.png"'
[ $rc -eq 1 ] && [ ! -e nodir ] && pass "png into a missing folder: exit 1" || fail "png nodir: exit $rc" "$(cat err)"
run 'png ones(4, 4) "big.png" scale 8000'
[ $rc -eq 1 ] && [ ! -e big.png ] && pass "png past the image size limit: exit 1, no file ($(cut -c1-80 err))" || fail "png too big: exit $rc" "$(cat err)"
no_tmp_files "after the failing writes"

# ---- the data/ examples, run from an empty folder ----
for ex in product poisson lcp; do
    mkdir "ex_$ex" && cd "ex_$ex" || exit 1
    if [ ! -f "$ROOT/data/$ex.tx" ]; then
        fail "data/$ex.tx is missing"
    else
        "$T" run "$ROOT/data/$ex.tx" > out 2> err; rc=$?
        if [ $rc -eq 0 ]; then pass "data/$ex.tx runs (exit 0)"; else fail "data/$ex.tx: exit $rc" "$(cat err)"; fi
        for png in *.png; do
            [ -e "$png" ] && is_png "data/$ex.tx wrote" "$png"
        done
    fi
    cd "$TMP" || exit 1
done
[ -f ex_product/product_C.png ] && [ -f ex_poisson/poisson_u.png ] && [ -f ex_lcp/lcp_x.png ] && pass "the examples wrote their PNGs" || fail "example PNGs missing" "$(ls ex_*)"
is_png "poisson.tx draws u on its 64 x 64 grid (scale 4)" ex_poisson/poisson_u.png 256 256
check "data/product.tx: C = A * B against the CPU" ex_product/product_C.mtx 1e-6 <<'EOF'
BEGIN { expect_rand(50, 64, 1); for (i = 0; i < 50; i++) for (j = 0; j < 64; j++) M["A", i, j] = E[i, j]; R["A"] = 50; C["A"] = 64
        expect_rand(64, 32, 2); for (i = 0; i < 64; i++) for (j = 0; j < 32; j++) M["B", i, j] = E[i, j]; R["B"] = 64; C["B"] = 32
        expect_mul("A", "B", 0, 0) }
EOF
awk_ok "data/poisson.tx: P u = 1 on the 64 x 64 grid (relative residual <= 2e-4)" <<'EOF'
BEGIN { mm_read("ex_poisson/poisson_u.mtx", "u"); n = 64; num = 0
    for (k = 0; k < n * n; k++) { x = k % n; y = int(k / n); s = 4 * M["u", k, 0]
        if (x > 0) s -= M["u", k - 1, 0]; if (x < n - 1) s -= M["u", k + 1, 0]
        if (y > 0) s -= M["u", k - n, 0]; if (y < n - 1) s -= M["u", k + n, 0]
        num += (1 - s) ^ 2 }
    e = sqrt(num / (n * n)); if (e > 2e-4) { print "relative residual", e; exit 1 }; printf "%.2g", e }
EOF
awk_ok "data/lcp.tx: x >= 0, A x + b >= 0, x'(A x + b) = 0" <<EOF
BEGIN { mm_read("$ROOT/data/lcp_A.mtx", "A"); mm_read("$ROOT/data/lcp_b.mtx", "b"); mm_read("ex_lcp/lcp_x.mtx", "x"); n = R["A"]; gap = 0; minw = 1; minx = 1; pos = 0
    for (i = 0; i < n; i++) { w = M["b", i, 0]; for (j = 0; j < n; j++) w += M["A", i, j] * M["x", j, 0]
        if (w < minw) minw = w; if (M["x", i, 0] < minx) minx = M["x", i, 0]; pos += M["x", i, 0] > 0; g = M["x", i, 0] * w; gap += g < 0 ? -g : g }
    if (minx < 0 || minw < -1e-5 || gap > 1e-5 || pos == 0 || pos == n) { print "min x", minx, "min w", minw, "|x.*w|", gap, "positive", pos; exit 1 }
    printf "%d of %d x_i > 0, min w %.2g", pos, n, minw }
EOF
grep -Eq 'lcp.tx:10: lcp: solved: 200 iterations' ex_lcp/err && pass "data/lcp.tx reports the LCP measures" || fail "lcp.tx stderr" "$(cat ex_lcp/err)"
# ---- texla tune FILE.mtx: the table, and the last line "best <format> <schedule> <us> us" ----
cat > tune.mtx <<'EOF'
%%MatrixMarket matrix coordinate real general
6 5 9
1 1 2.5
1 5 -1
2 2 1
3 1 0.5
3 3 4
3 4 -2
5 5 1.5
6 2 -3
6 5 1
EOF
cat > tunec.mtx <<'EOF'
%%MatrixMarket matrix coordinate complex hermitian
3 3 4
1 1 4 0
2 1 1 -1
2 2 3 0
3 3 2 0
EOF
for f in tune.mtx tunec.mtx; do
    XDG_CACHE_HOME="$TMP/cache" "$T" tune "$f" > out 2> err
    rc=$?
    last=$(tail -n 1 out)
    if [ "$rc" -eq 0 ] && grep -q '^format  *schedule  *parameters  *median us' out &&
       printf '%s\n' "$last" | grep -Eq '^best [a-z]+ [a-z]+ [0-9]+\.[0-9] us$'; then
        pass "texla tune $f: exit 0, last line '$last'"
    else
        fail "texla tune $f: exit $rc" "$(cat out err)"
    fi
done
XDG_CACHE_HOME="$TMP/cache" "$T" tune tune.mtx --transposed --block 2 --backend compute > out 2> err
rc=$?
if [ "$rc" -eq 0 ] && tail -n 1 out | grep -Eq '^best [a-z]+ [a-z]+ [0-9.]+ us$'; then
    pass "texla tune --transposed --block 2 --backend compute: $(tail -n 1 out)"
elif grep -q 'compute backend needs OpenGL 4.3\|cannot run on the compute' err; then
    skip "texla tune --backend compute: no compute shaders here"
else
    fail "texla tune --transposed --block 2 --backend compute: exit $rc" "$(cat out err)"
fi
XDG_CACHE_HOME="$TMP/cache" "$T" info > out 2> err
if grep -q "^tuning cache:   $TMP/cache/texla/tune.txt ([1-9][0-9]* entr" out && grep -q -- '-> fmt=' out; then
    pass "texla info lists the tuning cache: $(grep '^tuning cache' out)"
else
    fail "texla info: the tuning cache" "$(cat out err)"
fi
"$T" tune nothere.mtx > out 2> err
rc=$?
[ "$rc" -eq 1 ] && grep -q 'nothere.mtx' err && pass "texla tune of a missing file: exit 1" || fail "texla tune nothere.mtx: exit $rc" "$(cat err)"
"$T" tune tune.mtx --block 5 > out 2> err
rc=$?
[ "$rc" -eq 2 ] && grep -q 'usage: texla tune' err && pass "texla tune --block 5: exit 2 (usage)" || fail "texla tune --block 5: exit $rc" "$(cat err)"
rm -rf "$TMP/cache"
# a folder where the cache file should be: the tuning still ends well, the warning is shown and
# the summary says so
mkdir -p "$TMP/cache/texla/tune.txt"
XDG_CACHE_HOME="$TMP/cache" "$T" tune tune.mtx > out 2> err
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'texla: warning: tuning cache .*tune.txt: not a regular file' err &&
   grep -q 'see the warnings above' out && [ -d "$TMP/cache/texla/tune.txt" ]; then
    pass "texla tune with a folder as its cache: the warning shown, the folder left"
else
    fail "texla tune with a folder as its cache: exit $rc" "$(cat out err)"
fi
rm -rf "$TMP/cache"
# a 40000000 x 1 matrix of one entry on the compute backend: the rule's ELL would pad 160 MB,
# past llvmpipe's 128 MiB storage buffers; a compact storage is taken instead (A x and A' x)
printf '%%%%MatrixMarket matrix coordinate real general\n40000000 1 1\n7 1 2.5\n' > tall.mtx
printf 'A = load "tall.mtx"\ny = A * ones(1,1)\nprint(sum(y))\nz = A'"'"' * ones(40000000,1)\nprint(sum(z))\n' > tall.tx
"$T" --backend compute run tall.tx > out 2> err
rc=$?
if [ "$rc" -eq 0 ] && [ "$(grep -c '= 2.5$' out)" -eq 2 ]; then
    pass "A * x and A' * x of a 40000000 x 1 matrix of one entry (compute)"
elif grep -q 'compute backend needs OpenGL 4.3\|cannot run on the compute' err; then
    skip "40000000 x 1 on the compute backend: no compute shaders here"
else
    fail "A * x of a 40000000 x 1 matrix (compute): exit $rc" "$(cat out err)"
fi
rm -f tall.mtx tall.tx

# ---- the second CLI review's findings ----
# a script from a device is refused before it is read (/dev/zero ran the memory out); a pipe
# past 64 MiB stops there
"$T" run /dev/zero > out 2> err
rc=$?
[ "$rc" -eq 1 ] && grep -q '/dev/zero is a character device' err && pass "texla run /dev/zero: refused" ||
    fail "texla run /dev/zero: exit $rc" "$(cat err)"
head -c 70000000 /dev/zero | tr '\0' ' ' | "$T" run - > out 2> err
rc=$?
[ "$rc" -eq 1 ] && grep -q 'standard input is longer than 64 MiB' err && pass "texla run - of 70 MB: refused" ||
    fail "texla run - of 70 MB: exit $rc" "$(cat err)"
# standard input is open already: /dev/null is an empty script (exit 0)
"$T" run - < /dev/null > out 2> err
rc=$?
[ "$rc" -eq 0 ] && [ ! -s err ] && pass "texla run - < /dev/null: an empty script" ||
    fail "texla run - < /dev/null: exit $rc" "$(cat err)"
# output lost to a full device: exit 1, said (it was exit 0)
if [ -w /dev/full ]; then
    printf 'x = ones(3, 3)\nprint x\n' > full.tx
    "$T" run full.tx > /dev/full 2> err; r1=$?
    "$T" --version > /dev/full 2>> err; r2=$?
    [ "$r1" -eq 1 ] && [ "$r2" -eq 1 ] && [ "$(grep -c 'cannot write to standard output: No space left' err)" -eq 2 ] &&
        pass "output to /dev/full: exit 1 with the reason" || fail "output to /dev/full: exit $r1, $r2" "$(cat err)"
    rm -f full.tx
else
    skip "output to /dev/full: no /dev/full here"
fi
# S = S + S keeps one entry a cell (the triplets were kept apart: 2^k entries of a 7 x 5 matrix)
printf '%%%%MatrixMarket matrix coordinate real general\n7 5 3\n1 1 1\n3 2 -2\n7 5 0.5\n' > s75.mtx
{ echo 'S = load "s75.mtx"'; for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo 'S = S + S'; done
  echo 'T = S - S + S'; echo 'print T'; echo 'save T "t75.mtx"'; } > dbl.tx
"$T" run dbl.tx > out 2> err
rc=$?
if [ "$rc" -eq 0 ] && grep -q '7 x 5 sparse matrix (3 entries)' out &&
   awk 'NR == 2 && $3 != 3 { exit 1 } NR > 2 && $1 == 1 && $2 == 1 && $3 != 1048576 { exit 1 }
        NR > 2 && $1 == 3 && $2 == 2 && $3 != -2097152 { exit 1 }
        NR > 2 && $1 == 7 && $2 == 5 && $3 != 524288 { exit 1 }' t75.mtx; then
    pass "sparse S = S + S twenty times: 3 entries, each 2^20 times its value"
else
    fail "sparse S = S + S: exit $rc" "$(cat out err t75.mtx 2>/dev/null | head -20)"
fi
rm -f s75.mtx t75.mtx dbl.tx
# the global --backend reaches tune (it was ignored: tuned and cached for the other backend)
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n3 3 3\n' > d3.mtx
XDG_CACHE_HOME="$TMP/cache" "$T" --backend fragment tune d3.mtx > out 2> err
rc=$?
[ "$rc" -eq 0 ] && head -n 1 out | grep -q 'fragment backend' && pass "texla --backend fragment tune: the fragment backend" ||
    fail "texla --backend fragment tune: exit $rc" "$(cat out err)"
rm -rf "$TMP/cache"
# names of 250 bytes save (the temporary file's suffix went past NAME_MAX)
long=$(printf '%0250d' 0 | tr 0 a)
printf 'x = ones(2, 2)\nsave x "%s.mtx"\n' "$(printf '%0246d' 0 | tr 0 b)" > ln.tx
"$T" run ln.tx > out 2> err
rc=$?
[ "$rc" -eq 0 ] && [ -f "$(printf '%0246d' 0 | tr 0 b).mtx" ] && pass "save to a name of 250 bytes" ||
    fail "save to a name of 250 bytes: exit $rc" "$(cat err)"
rm -f ln.tx "$(printf '%0246d' 0 | tr 0 b).mtx"
# a read-only file is not replaced (the rename needed only the folder's permission); as root
# every file is writable, as for the shell's >
if [ "$(id -u)" -ne 0 ]; then
    echo keep > ro.mtx; chmod 444 ro.mtx
    printf 'x = ones(2, 2)\nsave x "ro.mtx"\n' > ro.tx
    "$T" run ro.tx > out 2> err
    rc=$?
    [ "$rc" -eq 1 ] && [ "$(cat ro.mtx)" = keep ] && grep -q 'cannot write it' err &&
        pass "save over a read-only file: refused, the file kept" || fail "save over a read-only file: exit $rc" "$(cat err)"
    chmod 644 ro.mtx; rm -f ro.mtx ro.tx
elif command -v su > /dev/null && su nobody -s /bin/sh -c "'$T' --version" > /dev/null 2>&1 &&
     su nobody -s /bin/sh -c "cd '$TMP' 2> /dev/null || exit 0; '$T' info" > /dev/null 2>&1; then
    mkdir rodir; echo keep > rodir/ro.mtx; chmod 444 rodir/ro.mtx
    printf 'x = ones(2, 2)\nsave x "ro.mtx"\n' > rodir/ro.tx
    chown -R nobody rodir; chmod 755 rodir; chmod 755 "$TMP"
    su nobody -s /bin/sh -c "cd '$TMP/rodir' && '$T' run ro.tx" > out 2> err
    rc=$?
    [ "$rc" -eq 1 ] && [ "$(cat rodir/ro.mtx)" = keep ] && grep -q 'cannot write it' err &&
        pass "save over a read-only file (as nobody): refused, the file kept" ||
        fail "save over a read-only file (as nobody): exit $rc" "$(cat err)"
    rm -rf rodir
else
    skip "save over a read-only file: running as root without su nobody"
fi
# numbers: a subnormal literal is itself (it was 0), a literal of 200 characters is read
run 'print 1e-310 * 1e300
print 0.'"$(printf '%0200d' 0)"'1e201'
if [ "$rc" -eq 0 ] && grep -q '^1e-310 \* 1e300 = 1e-10$' out && grep -q '= 1$' out; then
    pass "a subnormal literal and a literal of 200 characters"
else
    fail "subnormal and long literals: exit $rc" "$(cat out err)"
fi
# a 1 x 1 vector times a 1 x n sparse matrix (refused as not supported)
printf '%%%%MatrixMarket matrix coordinate real general\n1 4 2\n1 2 3\n1 4 -1\n' > r14.mtx
run 'R = load "r14.mtx"
x = 2 * ones(1, 1)
print x * R'
[ "$rc" -eq 0 ] && grep -q '^   0   6   0  -2$' out && pass "a 1 x 1 vector times a 1 x 4 sparse matrix" ||
    fail "a 1 x 1 vector times a 1 x 4 sparse matrix: exit $rc" "$(cat out err)"
rm -f r14.mtx
# 80000 variables in a second (the lookup was a scan: 39 s)
awk 'BEGIN { for (i = 0; i < 80000; i++) print "v" i " = " i; print "print v0 + v79999" }' > vars.tx
bounded "80000 variables" 0 '' vars.tx
grep -q '= 79999$' out || fail "80000 variables: the sum" "$(cat out)"
rm -f vars.tx
# messages: the index as written, a complex file, a .Png image
expect_error "an index of 1e30" 1 's.tx:2:7: error: A(1e+30, 1): the row index is out of range 1..3' 'A = ones(3, 3)
x = A(1e30, 1)'
printf '%%%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 2\n' > cx.mtx
expect_error "a complex file" 1 's.tx:1:5: error: load "cx.mtx": a complex Matrix Market file; scripts hold real values only' 'A = load "cx.mtx"'
rm -f cx.mtx

no_tmp_files "at the end"

summary
[ "$F" -eq 0 ]
