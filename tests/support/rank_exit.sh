#!/bin/sh
# Runs a command as one rank of an MPI job and says how it ended, so that a test can check the
# exit code of every rank, not only the one mpiexec reports:  rank_exit.sh COMMAND [ARGS...]
# (With Open MPI set OMPI_MCA_orte_abort_on_non_zero_status=0, or mpiexec may kill the other
# ranks, wrappers included, as soon as one rank exits non-zero; mpiexec then returns 0.)
"$@"
rc=$?
echo "rank ${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-?}} exit $rc"
exit $rc
