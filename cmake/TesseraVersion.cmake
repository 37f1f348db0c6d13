# Writes build/generated/tessera/version.hpp with the project version and the git commit. The
# commit is re-read at every build (a custom target), so `tessera --version` never goes stale;
# the header is only rewritten when its content changes, so nothing rebuilds needlessly.
set(TESSERA_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
add_custom_target(tessera_version_header
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${TESSERA_GENERATED_DIR}/tessera/version.hpp
          -DVERSION=${PROJECT_VERSION} -P ${CMAKE_SOURCE_DIR}/cmake/WriteVersion.cmake
  BYPRODUCTS ${TESSERA_GENERATED_DIR}/tessera/version.hpp
  COMMENT "Reading the git commit for tessera --version")
