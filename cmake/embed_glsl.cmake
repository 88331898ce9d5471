# embed_glsl.cmake - cmake -DGLSL_DIR=glsl -DFILES=a.frag,kernels/b.comp,... -DOUT=shaders.c -P
# Writes every file as one C string literal, named by its path under glsl/: the same table as
# the Makefile's rule for build/gen/shaders.c (texla__shader_files, texla__shader_file_count).
string(REPLACE "," ";" _files "${FILES}")
set(_c "/* generated from glsl/ by cmake/embed_glsl.cmake; do not edit */\n")
string(APPEND _c "#include \"gl/gl.h\"\nconst texla__shader_file texla__shader_files[] = {\n")
foreach(_f IN LISTS _files)
  file(READ "${GLSL_DIR}/${_f}" _s)
  string(REPLACE "\\" "\\\\" _s "${_s}")
  string(REPLACE "\"" "\\\"" _s "${_s}")
  string(REGEX REPLACE "\n$" "" _s "${_s}") # each line, the last too, ends in \n"
  string(REPLACE "\n" "\\n\"\n\"" _s "${_s}")
  string(APPEND _c "{\"${_f}\",\n\"${_s}\\n\"\n},\n")
endforeach()
string(APPEND _c "};\nconst int texla__shader_file_count = "
       "(int)(sizeof texla__shader_files / sizeof texla__shader_files[0]);\n")
file(WRITE "${OUT}.tmp" "${_c}")
file(RENAME "${OUT}.tmp" "${OUT}")
