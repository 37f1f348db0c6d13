"""Every HDF5 file tessera writes describes itself (docs/user-guide.md, "HDF5 conventions").

Runs a small deck of each solver on 2 ranks (nbody; fdtd with probes, a field volume, cpml
faces, a dft monitor and a flux plane; scan; bfs; spmv multiply with its matrix; spmv cg), each with a checkpoint at the end,
then opens every .h5 file written with h5py and asserts
  - every dataset has a non-empty `units` attribute: a string, or for a table (a dataset
    with a `columns` attribute) an array of non-empty strings, one per column;
  - every table's `columns` (and `units`) are variable-length strings, one per column;
  - every file's root has the provenance attributes (solver, tessera_version,
    tessera_commit, deck, ranks, created) with the run's values.
It also checks that the checker itself fails on a copy with one `units` and one provenance
attribute removed, and, when h5dump exists, that h5dump shows a column name unpadded.

usage: check_self_describing.py TESSERA DECKS_DIR WORKDIR MPIEXEC NP_FLAG "PREFLAGS"
Run with /usr/bin/python3 (Debian's h5py).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

import h5py
import numpy as np

PROVENANCE = ("solver", "tessera_version", "tessera_commit", "deck", "ranks", "created")
RANKS = 2

tessera, decks, workdir, mpiexec, np_flag, preflags = sys.argv[1:7]
if os.path.isdir(workdir):
    shutil.rmtree(workdir)
os.makedirs(workdir)

# name: (solver, deck, overrides, files that must appear)
RUNS = {
    "nbody": ("nbody", "nbody_plummer.toml",
              ["run.steps=20", "output.every=10", "diagnostics.every=5"],
              ["snapshot_0000.h5", "snapshot_0002.h5", "diagnostics.h5"]),
    "fdtd": ("fdtd", "fdtd_cavity.toml",
             ["run.steps=60", "output.every=30", "diagnostics.every=20", "fdtd.cpml.thickness=2",
              "fdtd.boundary.x_low=cpml", "fdtd.boundary.x_high=cpml"],
             ["fields_00000000.h5", "fields_00000060.h5", "probes.h5", "tm110_dft.h5", "flux.h5"]),
    "scan": ("scan", "scan_float32.toml", [], ["scan.h5"]),
    "bfs": ("bfs", "bfs_kronecker.toml", ["bfs.root_count=4"], ["bfs.h5"]),
    "spmv_multiply": ("spmv", "spmv_multiply.toml", [], ["spmv.h5", "matrix.h5"]),
    "spmv_cg": ("spmv", "spmv_cg.toml", ["spmv.cg.rhs=manufactured"], ["spmv.h5", "spmv_history.h5"]),
}

env = dict(os.environ, OMP_NUM_THREADS="1")
for name, (solver, deck, sets, expected) in RUNS.items():
    out = os.path.join(workdir, name)
    cmd = [mpiexec, np_flag, str(RANKS), *shlex.split(preflags), tessera, "run", os.path.join(decks, deck),
           "--set", f"run.output_dir={out}", "--set", "checkpoint.at_end=true", "--overwrite"]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{name}: tessera failed ({r.returncode}):\n{' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    for f in expected:
        assert os.path.isfile(os.path.join(out, f)), f"{name}: {f} was not written"
    checkpoints = os.path.join(out, "checkpoints")
    assert any(f.endswith(".h5") for f in os.listdir(checkpoints)), f"{name}: no checkpoint written"


def is_vlen_str(attr_id):
    info = h5py.check_string_dtype(attr_id.dtype)
    return info is not None and info.length is None


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def problems_of(path, solver):
    """Every way the file at PATH breaks the conventions (empty: none)."""
    found = []
    with h5py.File(path, "r") as f:
        root = f.attrs
        for a in PROVENANCE:
            if a not in root:
                found.append(f"root has no provenance attribute '{a}'")
        if "solver" in root and text(root["solver"]) != solver:
            found.append(f"root solver = {text(root['solver'])!r}, the run's solver is {solver!r}")
        if "deck" in root and f'solver = "{solver}"' not in text(root["deck"]):
            found.append("root deck is not the run's resolved deck")
        if "ranks" in root and int(root["ranks"]) != RANKS:
            found.append(f"root ranks = {root['ranks']}, the run had {RANKS}")
        for a in ("tessera_version", "tessera_commit"):
            if a in root and not text(root[a]):
                found.append(f"root {a} is empty")
        if "created" in root and not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", text(root["created"])):
            found.append(f"root created = {text(root['created'])!r} is not UTC ISO 8601")

        datasets = []
        f.visititems(lambda n, o: datasets.append(o) if isinstance(o, h5py.Dataset) else None)
        if not datasets and "manifest" not in f:  # a scan checkpoint holds only its manifest
            found.append("holds no dataset")
        for d in datasets:
            where = d.name
            if "units" not in d.attrs:
                found.append(f"{where} has no units attribute")
                continue
            units = d.attrs["units"]
            if "columns" in d.attrs:  # a table: one unit per column
                columns = d.attrs["columns"]
                ncols = d.shape[1] if d.ndim == 2 else -1
                if not is_vlen_str(d.attrs.get_id("columns")):
                    found.append(f"{where}: columns are not variable-length strings")
                if not is_vlen_str(d.attrs.get_id("units")):
                    found.append(f"{where}: units are not variable-length strings")
                if np.ndim(columns) != 1 or len(columns) != ncols:
                    found.append(f"{where}: {np.size(columns)} column names for {ncols} columns")
                if np.ndim(units) != 1 or len(units) != len(columns):
                    found.append(f"{where}: {np.size(units)} units for {np.size(columns)} columns")
                elif not all(text(u) for u in units):
                    found.append(f"{where}: an empty unit in {list(units)}")
            else:
                if np.ndim(units) != 0 or not text(units):
                    found.append(f"{where}: units {units!r} is not one non-empty string")
    return found


files = []
for dirpath, _, names in os.walk(workdir):
    for n in sorted(names):
        if n.endswith(".h5"):
            files.append(os.path.join(dirpath, n))
failures = []
for path in files:
    run = os.path.relpath(path, workdir).split(os.sep)[0]
    for p in problems_of(path, RUNS[run][0]):
        failures.append(f"{os.path.relpath(path, workdir)}: {p}")
if failures:
    sys.exit("files that do not describe themselves:\n  " + "\n  ".join(failures))
print(f"{len(files)} files checked: every dataset has units, every table per-column units, every root provenance")

# The check can fail: one dataset without units and a root without `created` are both caught.
copy = os.path.join(workdir, "broken.h5")
shutil.copy(os.path.join(workdir, "fdtd", "fields_00000060.h5"), copy)
with h5py.File(copy, "r+") as f:
    del f["Ez"].attrs["units"]
    del f.attrs["created"]
broken = problems_of(copy, "fdtd")
assert broken == ["root has no provenance attribute 'created'", "/Ez has no units attribute"], broken
shutil.copy(os.path.join(workdir, "nbody", "diagnostics.h5"), copy)
with h5py.File(copy, "r+") as f:
    f["nbody"].attrs["units"] = np.array(["1"] * 3, dtype=h5py.string_dtype())
broken = problems_of(copy, "nbody")
assert broken == ["/nbody: 3 units for 15 columns"], broken
print("the check fails on a dataset without units, a short units array and a missing provenance attribute")

# h5dump (Debian's hdf5-tools), when installed: column names and units read as plain strings.
h5dump = shutil.which("h5dump")
if h5dump:
    probes = os.path.join(workdir, "fdtd", "probes.h5")
    r = subprocess.run([h5dump, "-a", "/energy/columns", probes], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '"step"' in r.stdout and "\\000" not in r.stdout and "H5T_VARIABLE" in r.stdout, r.stdout
    r = subprocess.run([h5dump, "-a", "/energy/units", probes], capture_output=True, text=True)
    assert r.returncode == 0 and '"J"' in r.stdout and "\\000" not in r.stdout, r.stdout + r.stderr
    print("h5dump shows the column names and units without padding")
else:
    print("h5dump not found: its check skipped")
