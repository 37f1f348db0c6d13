# cmake -P: runs a command that must fail cleanly: exit code EXPECT_CODE, output matching
# EXPECT_REGEX, and nothing written to WORKDIR/out (no snapshot, diagnostics or checkpoint).
# With EVERY_RANK=P the command runs each rank through tests/support/rank_exit.sh, and each of
# ranks 0..P-1 must have ended with EXPECT_CODE instead (mpiexec's own code is not checked: Open
# MPI told to let every rank end by itself reports 0).
#   -DCMD="a|b|c" -DEXPECT_CODE=n -DEXPECT_REGEX=re -DWORKDIR=dir [-DEVERY_RANK=P]
string(REPLACE "|" ";" CMD "${CMD}")
file(REMOVE_RECURSE ${WORKDIR}/out)
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${CMD} WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 120)
message("command: ${CMD}\nexit code: ${rc}\n--- stdout\n${out}\n--- stderr\n${err}")
if(NOT EVERY_RANK AND NOT rc STREQUAL "${EXPECT_CODE}")
  message(FATAL_ERROR "expected exit code ${EXPECT_CODE}, got '${rc}'")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}'")
endif()
if(EVERY_RANK)
  math(EXPR last "${EVERY_RANK} - 1")
  foreach(r RANGE ${last})
    if(NOT "${out}${err}" MATCHES "rank ${r} exit ${EXPECT_CODE}\n")
      message(FATAL_ERROR "rank ${r} did not end with exit code ${EXPECT_CODE}")
    endif()
  endforeach()
endif()
file(GLOB_RECURSE written ${WORKDIR}/out/*)
if(written)
  message(FATAL_ERROR "a failed run left output behind: ${written}")
endif()
