# Failure agreement, end to end: failure_probe under mpiexec for P = 1..4; checks the exit code,
# that the failing rank's message is printed, and that the job ends within seconds (no hang).
add_executable(failure_probe failure_probe.cpp)
target_link_libraries(failure_probe PRIVATE tessera_comm)
foreach(mode agree waiting blocked)
  if(mode STREQUAL "agree")
    set(code 2)
    set(msg "probe.toml:4: value out of range")
  else()
    set(code 1)
    set(msg "device fell off the bus")
  endif()
  foreach(np 1 2 3 4)
    tessera_add_cli_test(comm_failure_${mode}.np${np} COMMAND $<TARGET_FILE:failure_probe> ${mode} NP ${np}
                         EXPECT_CODE ${code} EXPECT_REGEX "${msg}" MAX_SECONDS 30)
  endforeach()
endforeach()
# An allocation that fails on one rank outside an agreement point, the others waiting in a
# tessera collective: exit 1 on every rank, the message once, no MPI_Abort.
foreach(np 1 2 3 4)
  tessera_add_cli_test(comm_failure_bad_alloc.np${np} COMMAND $<TARGET_FILE:failure_probe> bad_alloc NP ${np}
                       EXPECT_CODE 1 EXPECT_REGEX "out of host memory: an allocation failed"
                       REJECT_REGEX "out of host memory.*out of host memory|MPI_ABORT|MPI_Abort|exited on signal"
                       MAX_SECONDS 20)
endforeach()
