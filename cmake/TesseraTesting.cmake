# Test helpers. Labels: unit (one process), mpi (mpiexec -n P for each P), gpu (needs a device;
# skipped with a visible reason elsewhere), slow.
include(GoogleTest)
find_package(GTest REQUIRED)

# Open MPI refuses to run as root (CI containers, the GPU host) unless told; --oversubscribe lets
# 4 ranks run on a 2-core machine.
set(TESSERA_MPIEXEC_PREFLAGS "--oversubscribe" CACHE STRING "Flags placed before the program in MPI tests")
set(TESSERA_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_btl_vader_single_copy_mechanism=none")
# What scripts/gpu-host/cross-node exports: the code paths of a job spread over nodes, on one host.
set(TESSERA_CROSS_NODE_ENV "TESSERA_RANKS_PER_NODE=1;NCCL_P2P_DISABLE=1;NCCL_SHM_DISABLE=1;NCCL_NET=Socket;NCCL_SOCKET_IFNAME=lo;OMPI_MCA_btl=self,tcp;OMPI_MCA_btl_tcp_if_include=lo")
# What a sanitized build's tests need (empty otherwise), also on its own for tests that must
# not get the MPI settings above (the Slurm jobs).
set(TESSERA_SANITIZER_ENV "")
if(TESSERA_SANITIZE)
  # Open MPI and HDF5 keep allocations until exit on purpose: leak reports would be theirs.
  # The fake-disk shim (LD_PRELOAD) loads before ASan's runtime, which it tolerates.
  # TESSERA_TEST_SANITIZED=1: the scripts skip what a sanitizer's runtime cannot take (an
  # address-space limit below ASan's shadow memory, a static launcher).
  set(TESSERA_SANITIZER_ENV "ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:abort_on_error=1"
      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1" "TESSERA_TEST_SANITIZED=1")
  list(APPEND TESSERA_TEST_ENV ${TESSERA_SANITIZER_ENV})
endif()

# tessera_add_unit_test(NAME SOURCES ... LIBS ... [LABELS ...])
function(tessera_add_unit_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "unit;${T_LABELS}" ENVIRONMENT "${TESSERA_TEST_ENV}" TIMEOUT 300)
endfunction()

# tessera_add_mpi_test(NAME SOURCES ... LIBS ... NPROCS 1 2 3 4 [LABELS ...] [TIMEOUT s] [NO_CROSS_NODE])
# Builds one executable (with tests/support/mpi_gtest_main.cpp) and registers NAME.npP per P;
# a gpu test also NAME.cross_node.npP for P > 1 (NO_CROSS_NODE: the caller registers its own).
function(tessera_add_mpi_test name)
  cmake_parse_arguments(T "NO_CROSS_NODE" "TIMEOUT" "SOURCES;LIBS;NPROCS;LABELS" ${ARGN})
  if(NOT T_NPROCS)
    set(T_NPROCS 1 2 3 4)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 180)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} tessera_test_support GTest::gtest)
  foreach(np IN LISTS T_NPROCS)
    add_test(NAME ${name}.np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${TESSERA_MPIEXEC_PREFLAGS}
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${name}.np${np} PROPERTIES LABELS "mpi;${T_LABELS}" PROCESSORS ${np}
                         ENVIRONMENT "${TESSERA_TEST_ENV}" TIMEOUT ${T_TIMEOUT})
    # A multi-rank GPU test runs a second time as a job spread over nodes runs: each rank a node
    # of its own (no peer memory), NCCL on its network transport, MPI over TCP, and mpirun's
    # default binding (one core per rank, as Slurm often gives it), so that nothing may need a
    # core of its own for a helper thread (scripts/gpu-host/cross-node sets the same).
    if(np GREATER 1 AND "gpu" IN_LIST T_LABELS AND NOT T_NO_CROSS_NODE)
      add_test(NAME ${name}.cross_node.np${np}
               COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${TESSERA_MPIEXEC_PREFLAGS}
                       ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS})
      set_tests_properties(${name}.cross_node.np${np} PROPERTIES LABELS "mpi;cross_node;${T_LABELS}" PROCESSORS ${np}
                           ENVIRONMENT "${TESSERA_TEST_ENV};${TESSERA_CROSS_NODE_ENV}" TIMEOUT ${T_TIMEOUT})
    endif()
  endforeach()
endfunction()

# tessera_add_cli_test(NAME COMMAND ... EXPECT_CODE n [EXPECT_REGEX re] [REJECT_REGEX re] [NP p]
#                      [MAX_SECONDS s] [LABELS ...])
# Runs a command (through mpiexec -n NP when NP is given) and checks code, output and time.
function(tessera_add_cli_test name)
  cmake_parse_arguments(T "" "EXPECT_CODE;EXPECT_REGEX;REJECT_REGEX;NP;MAX_SECONDS" "COMMAND;LABELS" ${ARGN})
  # A fresh `tessera run` in a test may find the outputs of the previous ctest invocation in its
  # output directory: start over there (--overwrite), as a user rerunning a deck would.
  if(";${T_COMMAND};" MATCHES ";run;" AND NOT ";${T_COMMAND};" MATCHES ";--(restart|overwrite);")
    list(APPEND T_COMMAND --overwrite)
  endif()
  set(cmd ${T_COMMAND})
  set(labels unit)
  if(T_NP)
    separate_arguments(pre UNIX_COMMAND "${TESSERA_MPIEXEC_PREFLAGS}")
    set(cmd ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_NP} ${pre} ${T_COMMAND})
    set(labels mpi)
  endif()
  string(REPLACE ";" "|" cmd_arg "${cmd}")  # run_and_check.cmake splits it again
  set(args -DCMD=${cmd_arg} -DEXPECT_CODE=${T_EXPECT_CODE} -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/${name}.work)
  if(DEFINED T_EXPECT_REGEX)
    list(APPEND args "-DEXPECT_REGEX=${T_EXPECT_REGEX}")
  endif()
  if(DEFINED T_REJECT_REGEX)
    list(APPEND args "-DREJECT_REGEX=${T_REJECT_REGEX}")
  endif()
  if(T_MAX_SECONDS)
    list(APPEND args -DMAX_SECONDS=${T_MAX_SECONDS})
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} ${args} -P ${PROJECT_SOURCE_DIR}/tests/support/run_and_check.cmake)
  set(procs 1)
  if(T_NP)
    set(procs ${T_NP})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${labels};${T_LABELS}" PROCESSORS ${procs}
                       ENVIRONMENT "${TESSERA_TEST_ENV}" TIMEOUT 150)
endfunction()
