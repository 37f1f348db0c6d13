#!/bin/sh
# Runs a command as one rank of an MPI job and says how it ended, so that a test can check the
# exit code of every rank, not only the one mpiexec reports:  rank_exit.sh COMMAND [ARGS...]
"$@"
rc=$?
echo "rank ${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-?}} exit $rc"
exit $rc
