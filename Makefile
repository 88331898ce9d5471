# texla - plain Makefile, out-of-tree into build/.
#   make            library build/lib/libtexla.a and programs in build/bin/
#   make test       headless tests on this machine's GL (llvmpipe without a GPU)
#   make demo       the demo (see README.md)
#   make bench      benchmarks (big sizes; meant for a real GPU)
#   make install PREFIX=/usr/local [DESTDIR=...] [SHARED=1]    make uninstall (same PREFIX)
# Switches: DEBUG=1 (-O0, texla debug checks), SANITIZE=address,undefined, WERROR=1 (CI),
#   SHARED=1 (also the shared library build/lib/libtexla.so.0, and install it).

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
B       := build

OPT      := $(if $(DEBUG),-O0 -g3 -DTEXLA_DEBUG,-O2 -g)
WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            $(if $(WERROR),-Werror)
SAN      := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer)
CPPFLAGS := -Iinclude -I$(B)/glad/include -D_POSIX_C_SOURCE=200809L
LIBCPPFLAGS := -Isrc
BASEFLAGS := -std=c11 $(OPT) $(SAN) -pthread -MMD -MP
LIBFLAGS := $(BASEFLAGS) -fvisibility=hidden -fPIC
LDLIBS   := -lpng -lm -ldl -pthread
GLFW_LIBS := -lglfw

# glad 2 from Debian's python3-glad; --reproducible: use the bundled Khronos XML (no network).
# The APIs and extensions are in glad.mk, which CMakeLists.txt reads too.
include glad.mk

# Debian packages: build tools, GL/EGL runtime (Mesa llvmpipe without a GPU), GLFW, Xvfb
DEB_PKGS := gcc make binutils python3-glad libegl1 libegl-mesa0 libgl1-mesa-dri libglfw3-dev libpng-dev \
            pkg-config xvfb xauth g++ cmake

# the library's layers, one folder each (README.md, "Layout of the source")
LAYERS   := base gl core storage ops solvers io
LIB_SRC  := $(foreach d,$(LAYERS),$(wildcard src/$(d)/*.c))
LIB_OBJ  := $(LIB_SRC:src/%.c=$(B)/obj/lib/%.o) $(B)/obj/gen_shaders.o $(B)/obj/glad_gl.o \
            $(B)/obj/glad_egl.o
GLSL     := $(sort $(wildcard glsl/*.vert glsl/*.frag glsl/kernels/*.comp glsl/common/*.glsl))
LIB      := $(B)/lib/libtexla.a
# SHARED=1: libtexla.so.VERSION, its soname link libtexla.so.MAJOR and the link libtexla.so
VERSION  := $(shell sed -n 's/^\#define TEXLA_VERSION_STRING "\(.*\)"/\1/p' include/texla.h)
SONAME   := libtexla.so.$(firstword $(subst ., ,$(VERSION)))
SO       := $(B)/lib/libtexla.so.$(VERSION)
SO_LINKS := $(B)/lib/$(SONAME) $(B)/lib/libtexla.so

# test and demo programs bring their own glad (as a host application would)
APP_GLAD := $(B)/obj/app_glad_gl.o $(B)/obj/app_glad_egl.o
TESTS    := $(B)/bin/test-texla $(B)/bin/test-window $(B)/bin/test-units
PROGS    := $(TESTS) $(B)/bin/texla $(B)/bin/texla-wave $(B)/bin/texla-cubes $(B)/bin/texla-matmul \
            $(B)/bin/texla-bench $(B)/bin/texla-host

# a recipe that fails (or is interrupted) removes its half-written target
.DELETE_ON_ERROR:

.PHONY: all deps test demo bench install uninstall clean check-symbols
all: $(LIB) $(if $(SHARED),$(SO_LINKS)) $(PROGS)

# ---- dependencies: install missing Debian packages (once per build tree) ----
deps: $(B)/.deps
$(B)/.deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "texla: installing missing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; \
	  else echo "texla: not root; run: apt-get install -y$$missing" >&2; exit 1; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing \
	  || { echo "texla: apt-get failed; run: apt-get install -y$$missing" >&2; exit 1; }; \
	fi
	@mkdir -p $(B) && touch $@

# ---- generated sources ----
$(B)/glad/src/gl.c: glad.mk | $(B)/.deps
	@mkdir -p $(B)/glad
	glad --quiet --reproducible --api $(GLAD_GL_API) --out-path $(B)/glad c
$(B)/glad/src/egl.c: glad.mk | $(B)/.deps
	@mkdir -p $(B)/glad
	glad --quiet --reproducible --api $(GLAD_EGL_API) --extensions $(GLAD_EGL_EXT) --out-path $(B)/glad c --loader
$(B)/glad/include/glad/gl.h: $(B)/glad/src/gl.c
$(B)/glad/include/glad/egl.h: $(B)/glad/src/egl.c
GLAD_HDRS := $(B)/glad/include/glad/gl.h $(B)/glad/include/glad/egl.h

# every glsl/ file becomes one C string literal in build/gen/shaders.c
$(B)/gen/shaders.c: $(GLSL) Makefile
	@mkdir -p $(@D)
	@{ echo '/* generated from glsl/ by the Makefile; do not edit */'; \
	   echo '#include "gl/gl.h"'; \
	   echo 'const texla__shader_file texla__shader_files[] = {'; \
	   for f in $(GLSL); do \
	     echo "{\"$${f#glsl/}\","; \
	     sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $$f; \
	     echo '},'; \
	   done; \
	   echo '};'; \
	   echo 'const int texla__shader_file_count = (int)(sizeof texla__shader_files / sizeof texla__shader_files[0]);'; \
	 } > $@.tmp && mv $@.tmp $@

# ---- library: one relocatable object, every symbol but the public texla_ API made local,
# so an application can bring its own glad (or any loader) without clashes ----
$(B)/obj/lib/%.o: src/%.c | $(GLAD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIBCPPFLAGS) $(LIBFLAGS) $(WARN) -c -o $@ $<
$(B)/obj/gen_shaders.o: $(B)/gen/shaders.c | $(GLAD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIBCPPFLAGS) $(LIBFLAGS) -c -o $@ $<
$(B)/obj/glad_gl.o: $(B)/glad/src/gl.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIBFLAGS) -w -c -o $@ $<
$(B)/obj/glad_egl.o: $(B)/glad/src/egl.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIBFLAGS) -w -c -o $@ $<
$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(LD) -r -o $(B)/obj/texla_all.o $(LIB_OBJ)
	objcopy --localize-hidden $(B)/obj/texla_all.o
	rm -f $@ && $(AR) rcs $@ $(B)/obj/texla_all.o

# ---- the shared library (SHARED=1): the same objects (already -fPIC, hidden by default); the
# version script makes local whatever else might be global, so only texla_ is exported ----
$(SO): $(LIB_OBJ) src/texla.map
	@mkdir -p $(@D)
	$(CC) $(SAN) -shared -o $@ -Wl,-soname,$(SONAME) -Wl,--version-script=src/texla.map \
	  -Wl,--no-undefined $(LIB_OBJ) $(LDLIBS)
$(SO_LINKS): $(SO)
	ln -sf libtexla.so.$(VERSION) $(B)/lib/$(SONAME)
	ln -sf $(SONAME) $(B)/lib/libtexla.so

check-symbols: $(LIB) $(if $(SHARED),$(SO))
	@bad=$$(nm -g --defined-only $(LIB) | awk 'NF==3 {print $$3}' | grep -v '^texla_' || true); \
	if [ -n "$$bad" ]; then echo "non-texla_ global symbols in $(LIB):"; echo "$$bad"; exit 1; fi; \
	echo "check-symbols: only texla_ symbols are global in $(LIB)"
	@if [ -n "$(SHARED)" ]; then \
	  bad=$$(nm -D --defined-only $(SO) | awk 'NF==3 {print $$3}' | grep -v '^texla_' || true); \
	  if [ -n "$$bad" ]; then echo "non-texla_ exported symbols in $(SO):"; echo "$$bad"; exit 1; fi; \
	  echo "check-symbols: only texla_ symbols are exported by $(SO)"; fi

# ---- programs ----
$(B)/obj/app_glad_gl.o: $(B)/glad/src/gl.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) -w -c -o $@ $<
$(B)/obj/app_glad_egl.o: $(B)/glad/src/egl.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) -w -c -o $@ $<
$(B)/obj/tests/%.o: tests/%.c | $(GLAD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Idemos/wave -Idemos/cubes $(BASEFLAGS) $(WARN) -c -o $@ $<
$(B)/obj/demos/%.o: demos/%.c | $(GLAD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) $(WARN) -c -o $@ $<

TEST_OBJ := $(patsubst tests/%.c,$(B)/obj/tests/%.o,$(filter-out tests/test_window.c tests/bench%.c,$(wildcard tests/*.c)))
# the demos' simulation code (everything but their main.c) is tested too
DEMO_SIM_OBJ := $(B)/obj/demos/wave/sim.o \
                $(patsubst %.c,$(B)/obj/%.o,$(filter-out demos/cubes/main.c,$(wildcard demos/cubes/*.c)))
$(B)/bin/test-texla: $(TEST_OBJ) $(DEMO_SIM_OBJ) $(APP_GLAD) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) -o $@ $(TEST_OBJ) $(DEMO_SIM_OBJ) $(APP_GLAD) $(LIB) $(LDLIBS)
$(B)/bin/test-window: $(B)/obj/tests/test_window.o $(B)/obj/tests/check.o $(B)/obj/app_glad_gl.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) -o $@ $^ $(GLFW_LIBS) $(LDLIBS)
# library files tested on their own with the GL layer stubbed (tests/unit/test_units.c)
UNIT_OBJ := $(patsubst src/%.c,$(B)/obj/unit/%.o,src/core/handles.c src/core/tune.c \
              src/base/afile.c src/base/error.c) $(B)/obj/unit/test_units.o
$(B)/obj/unit/%.o: src/%.c | $(GLAD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIBCPPFLAGS) $(BASEFLAGS) $(WARN) -c -o $@ $<
$(B)/obj/unit/test_units.o: tests/unit/test_units.c | $(GLAD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIBCPPFLAGS) $(BASEFLAGS) $(WARN) -c -o $@ $<
$(B)/bin/test-units: $(UNIT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(SAN) -o $@ $^
BENCH_OBJ := $(patsubst tests/%.c,$(B)/obj/tests/%.o,$(wildcard tests/bench*.c)) \
             $(B)/obj/tests/optest.o $(B)/obj/tests/ref_ops.o $(B)/obj/tests/check.o
$(B)/bin/texla-bench: $(BENCH_OBJ) $(APP_GLAD) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
CLI_OBJ := $(patsubst src/cli/%.c,$(B)/obj/cli/%.o,$(wildcard src/cli/*.c))
$(B)/obj/cli/%.o: src/cli/%.c | $(GLAD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) $(WARN) -c -o $@ $<
$(B)/bin/texla: $(CLI_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
$(B)/bin/texla-matmul: $(B)/obj/demos/matmul/main.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
DEMO_COMMON := $(patsubst %.c,$(B)/obj/%.o,$(wildcard demos/common/*.c))
$(B)/bin/texla-wave: $(B)/obj/demos/wave/main.o $(B)/obj/demos/wave/sim.o $(DEMO_COMMON) $(APP_GLAD) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) -o $@ $^ $(GLFW_LIBS) $(LDLIBS)
$(B)/bin/texla-cubes: $(patsubst %.c,$(B)/obj/%.o,$(wildcard demos/cubes/*.c)) $(DEMO_COMMON) $(APP_GLAD) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) -o $@ $^ $(GLFW_LIBS) $(LDLIBS)

# the host-mode example: one file, the app's own glad and GLFW
$(B)/bin/texla-host: $(B)/obj/demos/host/main.o $(B)/obj/app_glad_gl.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN) -o $@ $^ $(GLFW_LIBS) $(LDLIBS)

# ---- running ----
test: $(LIB) $(TESTS) $(B)/bin/texla $(B)/bin/texla-wave $(B)/bin/texla-cubes $(B)/bin/texla-host \
      check-symbols
	@sh tests/run.sh $(B)

# the main demo: a window when there is a display, else headless writing out/wave.png
demo: $(B)/bin/texla-wave $(B)/bin/texla-cubes $(B)/bin/texla-host
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then $(B)/bin/texla-wave; \
	else mkdir -p out && $(B)/bin/texla-wave --headless --frames 300 --size 256 --drops 4 --png out/wave.png; fi

bench: $(B)/bin/texla-bench
	$(B)/bin/texla-bench $(BENCH_ARGS)

# ---- installing: the library (static; SHARED=1 adds the shared one), texla.h, the texla
# CLI, texla.pc (pkg-config) and texlaConfig.cmake (CMake's find_package). texla.pc names
# PREFIX, so it is written at install time from texla.pc.in (as CMakeLists.txt does); the CMake
# files find everything relative to their own folder (a DESTDIR staging works too). ----
I_LIB   := $(DESTDIR)$(PREFIX)/lib
I_CMAKE := $(I_LIB)/cmake/texla
install: $(LIB) $(B)/bin/texla $(if $(SHARED),$(SO_LINKS))
	install -d $(I_LIB)/pkgconfig $(I_CMAKE) $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(LIB) $(I_LIB)/libtexla.a
	$(if $(SHARED),install -m 755 $(SO) $(I_LIB)/libtexla.so.$(VERSION))
	$(if $(SHARED),ln -sf libtexla.so.$(VERSION) $(I_LIB)/$(SONAME))
	$(if $(SHARED),ln -sf $(SONAME) $(I_LIB)/libtexla.so)
	install -m 644 include/texla.h $(DESTDIR)$(PREFIX)/include/texla.h
	install -m 755 $(B)/bin/texla $(DESTDIR)$(PREFIX)/bin/texla
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@PC_LIBDIR@|$${prefix}/lib|' \
	    -e 's|@PC_INCLUDEDIR@|$${prefix}/include|' -e 's|@VERSION@|$(VERSION)|' \
	    texla.pc.in > $(I_LIB)/pkgconfig/texla.pc
	sed -e 's|@VERSION@|$(VERSION)|' -e 's|@SONAME@|$(SONAME)|' cmake/texlaConfig-make.cmake.in > $(I_CMAKE)/texlaConfig.cmake
	sed -e 's|@VERSION@|$(VERSION)|' cmake/texlaConfigVersion.cmake.in > $(I_CMAKE)/texlaConfigVersion.cmake

# removes what install puts there (both kinds of library, whichever were installed)
uninstall:
	rm -f $(I_LIB)/libtexla.a $(I_LIB)/libtexla.so $(I_LIB)/$(SONAME) $(I_LIB)/libtexla.so.$(VERSION) \
	      $(DESTDIR)$(PREFIX)/include/texla.h $(DESTDIR)$(PREFIX)/bin/texla $(I_LIB)/pkgconfig/texla.pc \
	      $(I_CMAKE)/texlaConfig.cmake $(I_CMAKE)/texlaConfigVersion.cmake
	-rmdir $(I_CMAKE) 2>/dev/null

clean:
	rm -rf $(B)/obj $(B)/bin $(B)/lib $(B)/gen

# ---- fuzzing (README.md, "Fuzzing"): libFuzzer harnesses tests/fuzz/fuzz_NAME.c built with
# clang into $(FUZZ_B) (a make of its own, B=$(FUZZ_B)), with ASan and UBSan, linked to the
# library's objects (not the archive, whose internal symbols are made local: the tuning-cache
# harness calls one, the script harness wraps the file calls). `make fuzz` runs each for
# FUZZ_SECONDS from the seeds in tests/fuzz/corpus/NAME; what it finds goes to
# $(FUZZ_B)/fuzz/ (corpus and crash artifacts). clang is installed only for this target. ----
FUZZ_B        ?= build-fuzz
FUZZ_SECONDS  ?= 60
FUZZ_TARGETS  ?= mm png tune script
FUZZ_DEB_PKGS := clang libclang-rt-14-dev
FUZZ_SAN      := fuzzer-no-link,address,undefined
FUZZ_WRAP     := texla_mm_read texla_png_read texla_mm_write_array texla_mm_write_coord \
                 texla_png_mat texla_png_vec texla_png_scalar texla_png_banded texla_png_sparse \
                 texla_png_texture texla_cg texla_lcp_jacobi
.PHONY: fuzz fuzz-build fuzz-bins
fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_B) $(FUZZ_SECONDS) $(FUZZ_TARGETS)
fuzz-build: $(FUZZ_B)/.deps-fuzz
	$(MAKE) B=$(FUZZ_B) CC=clang SANITIZE=$(FUZZ_SAN) fuzz-bins
$(FUZZ_B)/.deps-fuzz:
	@missing=""; for p in $(FUZZ_DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "texla: installing missing Debian packages for fuzzing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; \
	  else echo "texla: not root; run: apt-get install -y$$missing" >&2; exit 1; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing \
	  || { echo "texla: apt-get failed; run: apt-get install -y$$missing" >&2; exit 1; }; \
	fi
	@mkdir -p $(FUZZ_B) && touch $@
fuzz-bins: $(patsubst %,$(B)/bin/fuzz-%,$(FUZZ_TARGETS))
$(B)/obj/tests/fuzz/%.o: tests/fuzz/%.c | $(GLAD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIBCPPFLAGS) $(BASEFLAGS) $(WARN) -c -o $@ $<
$(B)/bin/fuzz-%: $(B)/obj/tests/fuzz/fuzz_%.o $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)
$(B)/bin/fuzz-script: $(B)/obj/tests/fuzz/fuzz_script.o $(filter-out $(B)/obj/cli/main.o,$(CLI_OBJ)) \
                      $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -fsanitize=fuzzer,address,undefined $(foreach f,$(FUZZ_WRAP),-Wl,--wrap=$(f)) -o $@ $^ \
	  $(LDLIBS)

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
