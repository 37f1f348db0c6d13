# Install layout and RUNPATH, set before any target is made (CMake reads them at target creation).
#   PREFIX/bin/tessera, PREFIX/bin/tessera-post
#   PREFIX/share/tessera/{inputs,jobscripts,docs,python,modulefiles}
#   PREFIX/share/doc/tessera/copyright
include(GNUInstallDirs)
set(TESSERA_INSTALL_SHARE ${CMAKE_INSTALL_DATADIR}/tessera)

# Installed executables carry no build-tree path: an $ORIGIN-relative entry for tessera's own
# libraries (today all static; lib/ beside bin/ if that changes), so a copied or packaged prefix
# still works, plus the folders of external libraries that are not in the linker's default
# search path (MPI and HDF5 from a Spack or module prefix; CMake drops those inside the build
# tree). The build tree keeps its own RUNPATH for running tests in place.
set(CMAKE_INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH TRUE)
