# The files an installed tessera needs besides its executables: the shipped decks (which find
# their data relative to themselves, so they run from here), the job scripts, the docs, the
# licence and environment-module files.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/inputs/ DESTINATION ${TESSERA_INSTALL_SHARE}/inputs COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/jobscripts/ DESTINATION ${TESSERA_INSTALL_SHARE}/jobscripts
        USE_SOURCE_PERMISSIONS COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${TESSERA_INSTALL_SHARE}/docs COMPONENT runtime
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.svg")
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${TESSERA_INSTALL_SHARE}/docs
        COMPONENT runtime)
# Debian's place for the licence (and a harmless one elsewhere).
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright COMPONENT runtime)
# Relocatable modulefiles (they find the prefix from their own path): Lmod and Tcl modules.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/modules/tessera.lua
        DESTINATION ${TESSERA_INSTALL_SHARE}/modulefiles/tessera RENAME ${PROJECT_VERSION}.lua COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/modules/tessera.tcl
        DESTINATION ${TESSERA_INSTALL_SHARE}/modulefiles-tcl/tessera RENAME ${PROJECT_VERSION} COMPONENT runtime)

# No tesseraConfig.cmake: tessera is an application. Its libraries (tessera_core, _deck, _comm,
# _io, _solvers, _app) are static pieces of the one executable with no stable API; no headers
# are installed (docs/install.md says so).
