# CUDA is optional: TESSERA_CUDA=AUTO enables it when a toolkit is found. Only *.cu files need
# nvcc; host code talks to the runtime through CUDA::cudart and sees TESSERA_HAVE_CUDA.
include(CheckLanguage)
set(TESSERA_HAVE_CUDA OFF)
set(TESSERA_HAVE_NCCL OFF)
if(NOT TESSERA_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80;90" CACHE STRING "CUDA architectures (A100 and H100 by default)")
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc's C++20 flags (nvcc >= 12 has them): teach it.
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_EXTENSIONS OFF)
    string(APPEND CMAKE_CUDA_FLAGS " --expt-relaxed-constexpr")
    find_package(CUDAToolkit REQUIRED)
    # The oldest toolkit tessera supports (built and tested with 13.0; the BFS level loop's
    # device-launched graphs and stream capture into a graph need at least 12.3).
    if(CUDAToolkit_VERSION VERSION_LESS 12.8)
      message(FATAL_ERROR "tessera needs CUDA 12.8 or newer; found ${CUDAToolkit_VERSION} (${CUDAToolkit_BIN_DIR}). "
                          "Point CMAKE_CUDA_COMPILER at a newer nvcc, or configure with -DTESSERA_CUDA=OFF "
                          "for the CPU backend only")
    endif()
    set(TESSERA_HAVE_CUDA ON)
  elseif(TESSERA_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TESSERA_CUDA=ON but no CUDA compiler was found; set CMAKE_CUDA_COMPILER "
                        "or CUDAToolkit_ROOT, or configure with -DTESSERA_CUDA=OFF")
  else()
    message(STATUS "tessera: no CUDA toolkit found, building the CPU backend only")
  endif()
endif()

if(TESSERA_HAVE_CUDA)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME PATH_SUFFIXES include)
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib ENV NCCL_HOME
               PATH_SUFFIXES lib lib64)
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(TESSERA_HAVE_NCCL ON)
    add_library(tessera_nccl INTERFACE)
    target_include_directories(tessera_nccl SYSTEM INTERFACE ${NCCL_INCLUDE_DIR})
    target_link_libraries(tessera_nccl INTERFACE ${NCCL_LIBRARY})
  else()
    message(STATUS "tessera: NCCL not found, the nccl transport is unavailable")
  endif()
endif()
