"""Runs a small N-body deck and opens its snapshot and diagnostics with h5py, the way a
post-processing user (or yt's GADGET HDF5 frontend) reads them.

usage: check_snapshot.py TESSERA DECK WORKDIR
"""
import os
import subprocess
import sys

import h5py
import numpy as np

tessera, deck, workdir = sys.argv[1:4]
os.makedirs(workdir, exist_ok=True)
subprocess.run([tessera, "run", deck, "--set", "run.output_dir=out", "--overwrite"], cwd=workdir, check=True)

with h5py.File(os.path.join(workdir, "out", "snapshot_0001.h5"), "r") as f:
    h = f["Header"].attrs
    for key in ("NumPart_ThisFile", "NumPart_Total", "NumPart_Total_HighWord", "MassTable", "Time", "Redshift",
                "BoxSize", "NumFilesPerSnapshot", "Omega0", "OmegaLambda", "HubbleParam", "Flag_DoublePrecision"):
        assert key in h, f"missing /Header attribute {key}"
    n = int(h["NumPart_Total"][1]) + (int(h["NumPart_Total_HighWord"][1]) << 32)
    assert n == 64 and list(h["NumPart_ThisFile"]) == [0, 64, 0, 0, 0, 0], h["NumPart_ThisFile"]
    assert h["NumFilesPerSnapshot"] == 1 and h["OmegaLambda"] == 0.0
    assert abs(h["Time"] - 0.05) < 1e-12, h["Time"]
    pt = f["PartType1"]
    x, v, m, ids = pt["Coordinates"][:], pt["Velocities"][:], pt["Masses"][:], pt["ParticleIDs"][:]
    assert x.shape == (64, 3) and v.shape == (64, 3) and m.shape == (64,), (x.shape, v.shape, m.shape)
    assert ids.dtype == np.uint64 and sorted(ids.tolist()) == list(range(64))
    assert np.all(np.isfinite(x)) and np.all(np.isfinite(v))
    assert abs(m.sum() - 1.0) < 1e-6
    half = h["BoxSize"] / 2
    assert np.all(np.abs(x) <= half), "BoxSize must enclose the bodies (centred on the origin)"
    assert "Units" in f and "UnitLength_in_cm" in f["Units"].attrs
    assert b"[nbody]" in f["Parameters"].attrs["tessera_deck"]

with h5py.File(os.path.join(workdir, "out", "diagnostics.h5"), "r") as f:
    d = f["nbody"]
    columns = list(d.attrs["columns"])  # variable-length UTF-8: str
    assert all(isinstance(c, str) for c in columns), columns
    assert len(d.attrs["units"]) == len(columns) and d.attrs["units"][1].startswith("code_time"), d.attrs["units"]
    assert columns[:6] == ["step", "time", "kinetic", "potential", "total", "energy_error"], columns
    assert d.shape == (2, len(columns)), d.shape  # steps 0 and 5
    e = d[:, columns.index("energy_error")]
    assert e[0] == 0.0 and abs(e[1]) < 1e-3, e
print("snapshot and diagnostics read back with h5py")
