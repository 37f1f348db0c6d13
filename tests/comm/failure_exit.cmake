# Failure agreement, end to end: run failure_probe under mpiexec for P = 1..4 and check the
# exit code, the message and that it ends within seconds (run_failure_probe.cmake).
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
    add_test(NAME comm_failure_${mode}.np${np}
             COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=${np}
                     "-DPREFLAGS=${TESSERA_MPIEXEC_PREFLAGS}" -DPROBE=$<TARGET_FILE:failure_probe> -DMODE=${mode}
                     -DEXPECT_CODE=${code} "-DEXPECT_MESSAGE=${msg}"
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/run_failure_probe.cmake)
    set_tests_properties(comm_failure_${mode}.np${np} PROPERTIES LABELS mpi PROCESSORS ${np}
                         ENVIRONMENT "${TESSERA_TEST_ENV}" TIMEOUT 60)
  endforeach()
endforeach()
