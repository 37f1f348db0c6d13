# `cpack -G DEB` in the build tree: tessera_<version>_<arch>.deb installing into /usr.
# Library dependencies come from dpkg-shlibdeps (the Debian packages that own the libraries this
# build links: libopenmpi3, libhdf5-openmpi-103-1, ... on Debian 12); the programs and Python
# modules the executables run are declared here.
set(CPACK_PACKAGE_NAME tessera)
set(CPACK_PACKAGE_VENDOR "the tessera developers")
set(CPACK_PACKAGE_CONTACT "the tessera developers <tessera-developers@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}: N-body, FDTD, scan, BFS, SpMV/CG over MPI")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "tessera runs five scientific workloads (all-pairs N-body, 3D FDTD electromagnetics, distributed "
    "prefix sum, direction-optimizing BFS, SpMV and conjugate gradients) over MPI ranks, on CPUs "
    "(OpenMP) or one GPU per rank, with parallel HDF5 outputs and checkpoints. Licence: BSD-3-Clause.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # tessera_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# mpirun for launching; Python with h5py, numpy and matplotlib for tessera-post.
set(_tessera_deb_depends "openmpi-bin, python3, python3-h5py, python3-numpy, python3-matplotlib")
find_program(TESSERA_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(TESSERA_DPKG_SHLIBDEPS AND NOT TESSERA_HAVE_CUDA)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  # A CUDA build links NCCL and CUDA libraries that no Debian package may own (NVIDIA's
  # installers): dpkg-shlibdeps would fail on them, so name the Debian 12 runtime libraries and
  # leave the CUDA runtime to the site.
  string(APPEND _tessera_deb_depends ", libopenmpi3, libhdf5-openmpi-103-1, libtomlplusplus3, libspdlog1.10, "
                                     "libfmt9, libgomp1")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_tessera_deb_depends}")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client, environment-modules | lmod, python3-yt, paraview")

set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "__pycache__")
include(CPack)
