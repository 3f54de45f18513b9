# Writes the git revision into a header at build time (not only at configure time), so a
# binary always names the commit it was built from. Rewrites the file only when it changes.
execute_process(COMMAND git describe --always --dirty --abbrev=12
  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE revision
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT revision)
  set(revision "unknown")
endif()
set(content "#pragma once\n#define GPUDISSECT_GIT_REVISION \"${revision}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUTPUT} "${content}")
endif()
