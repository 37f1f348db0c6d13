-- Lmod modulefile for tessera. Installed as PREFIX/share/tessera/modulefiles/tessera/<version>.lua;
-- it finds PREFIX from its own path, so a copied or relocated prefix needs no edit. Use it with
--   module use PREFIX/share/tessera/modulefiles && module load tessera
-- or copy it into the site's module tree and set `prefix` below to the install prefix.
local here = myFileName():match("(.*)/share/tessera/modulefiles/tessera/[^/]*$")
local prefix = here or "/opt/tessera"   -- site copy: the install prefix

whatis("Name: tessera")
whatis("Version: " .. myModuleVersion())
whatis("Description: N-body, FDTD, scan, BFS and SpMV/CG over MPI, on CPUs or one GPU per rank")
whatis("License: BSD-3-Clause")
help([[
tessera: run a deck with `mpirun -np N tessera run DECK.toml`, check the machine with
`tessera info`. Example decks: $TESSERA_HOME/inputs; Slurm scripts: $TESSERA_HOME/jobscripts;
docs: $TESSERA_HOME/docs. tessera needs the MPI and parallel HDF5 it was built against: load
the site's modules for them first (or add depends_on() lines below).
]])

-- Site-specific: the MPI and HDF5 modules this tessera was built with, e.g.
-- depends_on("openmpi/4.1") ; depends_on("hdf5-mpi/1.10")
prepend_path("PATH", pathJoin(prefix, "bin"))
setenv("TESSERA_HOME", pathJoin(prefix, "share/tessera"))
