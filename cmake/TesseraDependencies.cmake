# Every dependency comes from the system (Debian packages or the CUDA toolkit); nothing is
# downloaded at configure time. scripts/quickstart.sh installs the packages when missing.
set(_tessera_apt_hint "install it with: sudo apt-get install openmpi-bin libopenmpi-dev libhdf5-openmpi-dev libtomlplusplus-dev libcli11-dev libspdlog-dev libfmt-dev libgtest-dev (or run scripts/quickstart.sh)")

find_package(MPI REQUIRED COMPONENTS C)
# tessera uses the C API only; keep the deprecated C++ bindings out of every translation unit.
add_compile_definitions(OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)

# Parallel HDF5: prefer the MPI build when both are installed, and refuse a serial one, since
# every output and checkpoint is written collectively through MPI-IO.
set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 REQUIRED COMPONENTS C)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "tessera needs parallel (MPI) HDF5, but the HDF5 found (${HDF5_VERSION}, "
                      "${HDF5_C_LIBRARIES}) is serial. On Debian/Ubuntu ${_tessera_apt_hint}; "
                      "elsewhere load a parallel HDF5 module or set HDF5_ROOT to one.")
endif()
add_library(tessera_hdf5 INTERFACE)
target_include_directories(tessera_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS})
target_link_libraries(tessera_hdf5 INTERFACE ${HDF5_C_LIBRARIES} MPI::MPI_C)
target_compile_definitions(tessera_hdf5 INTERFACE ${HDF5_C_DEFINITIONS} H5_USE_110_API)

find_package(tomlplusplus QUIET)
if(NOT TARGET tomlplusplus::tomlplusplus)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
  add_library(tomlplusplus::tomlplusplus ALIAS PkgConfig::TOMLPP)
endif()
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(Threads REQUIRED)

# The interpreter with h5py and numpy (Debian's python3-* packages serve /usr/bin/python3, which
# may differ from the python3 first on PATH).
find_program(TESSERA_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TESSERA_PYTHON)
  execute_process(COMMAND ${TESSERA_PYTHON} -c "import h5py, numpy" RESULT_VARIABLE _py_rc
                  OUTPUT_QUIET ERROR_QUIET)
  if(NOT _py_rc EQUAL 0)
    set(TESSERA_PYTHON "" CACHE FILEPATH "" FORCE)
  endif()
endif()
set(TESSERA_PYTHON_MATPLOTLIB OFF)
if(TESSERA_PYTHON)
  execute_process(COMMAND ${TESSERA_PYTHON} -c "import matplotlib" RESULT_VARIABLE _mpl_rc OUTPUT_QUIET ERROR_QUIET)
  if(_mpl_rc EQUAL 0)
    set(TESSERA_PYTHON_MATPLOTLIB ON)
  endif()
endif()
