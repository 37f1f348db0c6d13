#%Module1.0
# environment-modules (Tcl) modulefile for tessera. Installed as
# PREFIX/share/tessera/modulefiles-tcl/tessera/<version>; it finds PREFIX from its own path.
#   module use PREFIX/share/tessera/modulefiles-tcl && module load tessera
# A site copy elsewhere: set prefix below to the install prefix.
set here [file normalize [file dirname $ModulesCurrentModulefile]]
if {[regexp {^(.*)/share/tessera/modulefiles-tcl/tessera$} $here -> prefix] == 0} {
    set prefix /opt/tessera
}

module-whatis "tessera: N-body, FDTD, scan, BFS and SpMV/CG over MPI (BSD-3-Clause)"
proc ModulesHelp {} {
    puts stderr "tessera: mpirun -np N tessera run DECK.toml; decks in \$TESSERA_HOME/inputs,"
    puts stderr "Slurm scripts in \$TESSERA_HOME/jobscripts, docs in \$TESSERA_HOME/docs."
}
# Site-specific: the MPI and HDF5 modules this tessera was built with, e.g.
# prereq openmpi hdf5-mpi
prepend-path PATH $prefix/bin
setenv TESSERA_HOME $prefix/share/tessera
