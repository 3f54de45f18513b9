# Writes the git revision and a hash of the sources into a header at build time (not only at
# configure time), so a binary always names what it was built from. Rewrites the file only when
# it changes. The source hash also identifies a copy of the tree without .git (a GPU machine):
# scripts/source_hash.sh computes the same value from the files.
execute_process(COMMAND git describe --always --dirty --abbrev=12
  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE revision
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT revision)
  set(revision "unknown")
endif()

# sha256 over "<sha256 of file>  <path>\n" lines of every file under src/ and cmake/ plus
# CMakeLists.txt, sorted by path: the format of `sha256sum` run over the sorted list.
file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/src/* ${SOURCE_DIR}/cmake/*)
list(APPEND sources CMakeLists.txt)
list(SORT sources)
set(listing "")
foreach(f IN LISTS sources)
  file(SHA256 ${SOURCE_DIR}/${f} h)
  string(APPEND listing "${h}  ${f}\n")
endforeach()
string(SHA256 source_hash "${listing}")

set(content "#pragma once\n#define GPUDISSECT_GIT_REVISION \"${revision}\"\n#define GPUDISSECT_SOURCE_HASH \"${source_hash}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUTPUT} "${content}")
endif()
