#!/bin/sh
# test_install.sh - texla the way a user gets it: installed, then used from another project.
# Run from the repository root:  sh tests/test_install.sh [BUILD_DIR]   (default build)
# Last line: "N passed, M failed, K skipped" (tests/run.sh adds it up).
#
# CHECKED (everything staged under a temporary DESTDIR; nothing is installed on the machine):
#  - make install: the static library, texla.h, the texla CLI (runs), texla.pc,
#    texlaConfig.cmake; with SHARED=1 also libtexla.so.VERSION, the soname link libtexla.so.0
#    and libtexla.so, a soname of libtexla.so.0, and only texla_ symbols exported;
#  - pkg-config: `--libs` names libpng only through --static (Requires.private), a C and a C++
#    consumer (tests/consumer/) build and run against the static install (--static: no libtexla
#    needed at run time) and against the shared one (plain --libs: NEEDED libtexla.so.0);
#  - CMake find_package(texla) on the make install: texla::texla is the shared library, or
#    the static one with TEXLA_STATIC=ON; both consumers build and run;
#  - the CMake build (tests/consumer with add_subdirectory, as FetchContent does; glad generated
#    from CMake): builds and runs, exports the same texla_ symbols as the Makefile's library and
#    nothing else, embeds the same shaders; cmake --install, then find_package on that install;
#    a shared CMake build (BUILD_SHARED_LIBS=ON) exports only texla_ symbols and runs;
#  - make uninstall leaves no file behind.
# Each consumer computes a small product or sum on the GPU and checks it exactly. Parts whose
# tools are missing (pkg-config, cmake, a C++ compiler) are skipped; a sanitizer build is
# skipped as a whole (its library needs the sanitizer runtime, which pkg-config cannot know).
B=${1:-build}
. "$(dirname "$0")/demo_lib.sh"
ROOT=$(pwd)
MAKE=${MAKE:-make}
unset MAKEFLAGS MFLAGS MAKELEVEL # a fresh make: not the jobserver or variables of `make test`
T=$(mktemp -d "${TMPDIR:-/tmp}/texla-install-test.XXXXXX") || { fail "mktemp"; summary; }
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache" # the consumers' tuning cache stays here
CONS=$ROOT/tests/consumer
PFX=/usr/local # the PREFIX the files name; DESTDIR stages them

if [ ! -f "$B/lib/libtexla.a" ]; then fail "$B/lib/libtexla.a is not built"; summary; fi
if nm "$B/lib/libtexla.a" 2>/dev/null | grep -q ' U __\(asan\|ubsan\)_'; then
    skip "install and consumers: $B is a sanitizer build"
    summary
fi
CXX_OK=""; command -v "${CXX:-c++}" >/dev/null 2>&1 && CXX_OK=1
CXX=${CXX:-c++}
CC=${CC:-cc}
needs_so() { readelf -d "$1" 2>/dev/null | grep -q 'NEEDED.*\[libtexla\.so\.0\]'; }

# ---- 1. make install (static only, then with SHARED=1) ----
if $MAKE -s --no-print-directory B="$B" install DESTDIR="$T/ms" PREFIX=$PFX > "$T/log" 2>&1 &&
   $MAKE -s --no-print-directory B="$B" install DESTDIR="$T/md" PREFIX=$PFX SHARED=1 >> "$T/log" 2>&1
then pass "make install and make install SHARED=1 into a DESTDIR"
else fail "make install: $(tail -n 5 "$T/log")"; summary; fi
MS=$T/ms$PFX MD=$T/md$PFX
for f in lib/libtexla.a include/texla.h bin/texla lib/pkgconfig/texla.pc \
         lib/cmake/texla/texlaConfig.cmake lib/cmake/texla/texlaConfigVersion.cmake; do
    check "make install: $f" [ -f "$MS/$f" ]
done
check "make install without SHARED: no shared library" [ ! -e "$MS/lib/libtexla.so" ]
VERSION=$(sed -n 's/^#define TEXLA_VERSION_STRING "\(.*\)"/\1/p' include/texla.h)
check "SHARED=1: libtexla.so.$VERSION" [ -f "$MD/lib/libtexla.so.$VERSION" ]
check "SHARED=1: libtexla.so.0 -> libtexla.so.$VERSION" \
    [ "$(readlink "$MD/lib/libtexla.so.0")" = "libtexla.so.$VERSION" ]
check "SHARED=1: libtexla.so -> libtexla.so.0" [ "$(readlink "$MD/lib/libtexla.so")" = "libtexla.so.0" ]
check "SHARED=1: soname libtexla.so.0" \
    sh -c "readelf -d '$MD/lib/libtexla.so.$VERSION' | grep -q 'SONAME.*\[libtexla\.so\.0\]'"
exports() { nm -D --defined-only "$1" | awk 'NF==3 {print $3}' | sort; }
bad=$(exports "$MD/lib/libtexla.so.$VERSION" | grep -v '^texla_')
n=$(exports "$MD/lib/libtexla.so.$VERSION" | grep -c '^texla_')
if [ -z "$bad" ] && [ "$n" -gt 50 ]; then pass "the shared library exports only texla_ symbols ($n)"
else fail "the shared library exports $n texla_ symbols and: $(echo $bad | head -c 300)"; fi
"$MS/bin/texla" --help > "$T/cli" 2>&1
check "the installed texla CLI runs (--help exits 0)" [ $? -eq 0 ]

# run NAME BINARY [LD_LIBRARY_PATH]: the consumer exits 0 and says its result is exact
run() {
    if LD_LIBRARY_PATH=$3 "$2" > "$T/run" 2>&1 && grep -q 'exact' "$T/run"; then pass "$1 runs: $(cat "$T/run")"
    else fail "$1 runs: $(head -c 400 "$T/run")"; fi
}
# build NAME COMMAND...: the command (a compile and link) succeeds
build() {
    d=$1; shift
    if "$@" > "$T/build" 2>&1; then pass "$d builds"; return 0; fi
    fail "$d builds: $(head -c 600 "$T/build")"; return 1
}

# ---- 2. pkg-config ----
if ! command -v pkg-config >/dev/null 2>&1; then
    skip "pkg-config consumers: no pkg-config"
else
    # the installed texla.pc with its prefix moved to the DESTDIR staging (pkg-config's own
    # --define-prefix would move libpng's prefix as well)
    pcs() {
        d=$1; shift
        pd=$T/pc-$(echo "$d" | cksum | cut -d' ' -f1)
        mkdir -p "$pd" && sed "s|^prefix=.*|prefix=$d|" "$d/lib/pkgconfig/texla.pc" > "$pd/texla.pc"
        PKG_CONFIG_PATH=$pd pkg-config "$@"
    }
    libs=$(pcs "$MS" --libs texla); slibs=$(pcs "$MS" --libs --static texla)
    check "pkg-config --libs texla: -ltexla without libpng ($libs)" \
        sh -c "echo '$libs' | grep -q -- -ltexla && ! echo '$libs' | grep -q png"
    check "pkg-config --libs --static texla: libpng, -lm, -ldl, -pthread through Requires.private ($slibs)" \
        sh -c "echo '$slibs' | grep -q -- '-lpng' && echo '$slibs' | grep -q -- -lm && echo '$slibs' | grep -q -- -ldl && echo '$slibs' | grep -q -- -pthread"
    if build "pkg-config static C consumer" \
        $CC -std=c11 -Wall -Wextra -Werror -o "$T/pc_static_c" "$CONS/consumer.c" \
            $(pcs "$MS" --cflags --libs --static texla); then
        check "static C consumer needs no libtexla.so" sh -c "! readelf -d '$T/pc_static_c' | grep -q libtexla"
        run "pkg-config static C consumer" "$T/pc_static_c"
    fi
    if build "pkg-config shared C consumer (plain --libs)" \
        $CC -std=c11 -Wall -Wextra -Werror -o "$T/pc_shared_c" "$CONS/consumer.c" \
            $(pcs "$MD" --cflags --libs texla); then
        check "shared C consumer: NEEDED libtexla.so.0" needs_so "$T/pc_shared_c"
        run "pkg-config shared C consumer" "$T/pc_shared_c" "$MD/lib"
    fi
    if [ -z "$CXX_OK" ]; then
        skip "pkg-config C++ consumers: no C++ compiler"
    else
        # the C++ link needs the C library's dependencies too: --static for the static library
        if build "pkg-config static C++ consumer" \
            $CXX -std=c++11 -Wall -Wextra -Wpedantic -Werror -o "$T/pc_static_cxx" \
                "$CONS/consumer.cpp" $(pcs "$MS" --cflags --libs --static texla); then
            run "pkg-config static C++ consumer" "$T/pc_static_cxx"
        fi
        if build "pkg-config shared C++ consumer" \
            $CXX -std=c++11 -Wall -Wextra -Wpedantic -Werror -o "$T/pc_shared_cxx" \
                "$CONS/consumer.cpp" $(pcs "$MD" --cflags --libs texla); then
            check "shared C++ consumer: NEEDED libtexla.so.0" needs_so "$T/pc_shared_cxx"
            run "pkg-config shared C++ consumer" "$T/pc_shared_cxx" "$MD/lib"
        fi
    fi
fi

# ---- 3. CMake ----
if ! command -v cmake >/dev/null 2>&1 || [ -z "$CXX_OK" ]; then
    skip "CMake consumers: no cmake or no C++ compiler"
else
    GEN=""
    command -v ninja >/dev/null 2>&1 && GEN="-G Ninja"
    # cmake_consumer NAME BUILD_DIR CMAKE_ARGS...: configure and build tests/consumer
    cmake_consumer() {
        d=$1 bd=$2; shift 2
        if cmake -S "$CONS" -B "$bd" $GEN "$@" > "$T/cmake" 2>&1 &&
           cmake --build "$bd" -j 2 >> "$T/cmake" 2>&1; then
            pass "$d: configures and builds"; return 0
        fi
        fail "$d: $(grep -v '^--' "$T/cmake" | tail -n 12)"; return 1
    }
    # on the make install: the shared library by default, the static one when asked
    if cmake_consumer "find_package on make install (shared)" "$T/c_md" -DCMAKE_PREFIX_PATH="$MD"; then
        check "find_package (make install): texla::texla is the shared library" needs_so "$T/c_md/consumer_c"
        run "find_package (make install, shared) C consumer" "$T/c_md/consumer_c" "$MD/lib"
        run "find_package (make install, shared) C++ consumer" "$T/c_md/consumer_cxx" "$MD/lib"
    fi
    if cmake_consumer "find_package on make install (TEXLA_STATIC=ON)" "$T/c_ms" \
        -DCMAKE_PREFIX_PATH="$MD" -DTEXLA_STATIC=ON; then
        check "find_package (make install, TEXLA_STATIC=ON): static" sh -c "! readelf -d '$T/c_ms/consumer_c' | grep -q libtexla"
        run "find_package (make install, static) C consumer" "$T/c_ms/consumer_c"
        run "find_package (make install, static) C++ consumer" "$T/c_ms/consumer_cxx"
    fi
    # the CMake build itself, through add_subdirectory, then its install
    if cmake_consumer "CMake build of texla (add_subdirectory)" "$T/c_sub" -DTEXLA_SOURCE_DIR="$ROOT" \
        -DTEXLA_INSTALL=ON -DTEXLA_BUILD_CLI=ON -DCMAKE_INSTALL_PREFIX=$PFX -DTEXLA_WERROR=ON; then
        check "CMake build: the loaders were generated by glad from CMake" \
            [ -f "$T/c_sub/texla/texla-gen/glad/src/gl.c" ]
        run "add_subdirectory C consumer" "$T/c_sub/consumer_c"
        run "add_subdirectory C++ consumer" "$T/c_sub/consumer_cxx"
        syms() { nm -g --defined-only "$1" | awk 'NF==3 {print $3}' | sort; }
        syms "$B/lib/libtexla.a" > "$T/make.syms"; syms "$T/c_sub/texla/libtexla.a" > "$T/cmake.syms"
        if cmp -s "$T/make.syms" "$T/cmake.syms"; then
            pass "CMake's libtexla.a has the same global symbols as the Makefile's ($(wc -l < "$T/make.syms"), all texla_)"
        else
            fail "CMake's libtexla.a and the Makefile's differ in global symbols: $(diff "$T/make.syms" "$T/cmake.syms" | head -n 8 | tr '\n' ' ')"
        fi
        if [ -f "$B/gen/shaders.c" ] &&
           [ "$(sed 1d "$B/gen/shaders.c" | cksum)" = "$(sed 1d "$T/c_sub/texla/texla-gen/shaders.c" | cksum)" ]
        then pass "CMake embeds the same shaders as the Makefile"
        else fail "CMake's texla-gen/shaders.c differs from $B/gen/shaders.c"; fi
        if DESTDIR="$T/cm" cmake --install "$T/c_sub" > "$T/cmake" 2>&1; then
            pass "cmake --install into a DESTDIR"
            for f in lib/libtexla.a include/texla.h bin/texla lib/pkgconfig/texla.pc \
                     lib/cmake/texla/texlaConfig.cmake lib/cmake/texla/texlaTargets.cmake; do
                check "cmake --install: $f" [ -f "$T/cm$PFX/$f" ]
            done
            if cmake_consumer "find_package on the CMake install" "$T/c_cm" -DCMAKE_PREFIX_PATH="$T/cm$PFX"; then
                run "find_package (CMake install) C consumer" "$T/c_cm/consumer_c"
                run "find_package (CMake install) C++ consumer" "$T/c_cm/consumer_cxx"
            fi
        else
            fail "cmake --install: $(tail -n 5 "$T/cmake")"
        fi
    fi
    # a shared CMake build; the loaders just generated are reused (TEXLA_GLAD_DIR)
    glad_dir=""
    [ -f "$T/c_sub/texla/texla-gen/glad/src/gl.c" ] && glad_dir="-DTEXLA_GLAD_DIR=$T/c_sub/texla/texla-gen/glad"
    if cmake_consumer "CMake build of texla, BUILD_SHARED_LIBS=ON" "$T/c_so" -DTEXLA_SOURCE_DIR="$ROOT" \
        -DBUILD_SHARED_LIBS=ON $glad_dir; then
        so=$(ls "$T"/c_so/texla/libtexla.so.*.*.* 2>/dev/null | head -n 1)
        bad=$( [ -n "$so" ] && exports "$so" | grep -v '^texla_')
        if [ -n "$so" ] && [ -z "$bad" ] && readelf -d "$so" | grep -q 'SONAME.*\[libtexla\.so\.0\]'; then
            pass "CMake shared library: soname libtexla.so.0, exports only texla_ symbols"
        else
            fail "CMake shared library ($so): soname or exports wrong: $(echo $bad | head -c 300)"
        fi
        check "CMake shared build: the consumer needs libtexla.so.0" needs_so "$T/c_so/consumer_c"
        run "CMake shared C consumer" "$T/c_so/consumer_c"
    fi
fi

# ---- 4. make uninstall ----
$MAKE -s --no-print-directory B="$B" uninstall DESTDIR="$T/md" PREFIX=$PFX > "$T/log" 2>&1
$MAKE -s --no-print-directory B="$B" uninstall DESTDIR="$T/ms" PREFIX=$PFX >> "$T/log" 2>&1
left=$(find "$T/md" "$T/ms" ! -type d 2>/dev/null)
if [ -z "$left" ]; then pass "make uninstall removes every installed file (static and shared installs)"
else fail "make uninstall left: $(echo $left | head -c 300)"; fi

summary
