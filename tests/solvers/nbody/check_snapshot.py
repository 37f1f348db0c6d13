"""Runs a small N-body deck and opens its snapshot and diagnostics with h5py, the way a
post-processing user (or yt's SWIFT frontend) reads them.

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
    box, shift = np.asarray(h["BoxSize"]), np.asarray(h["Shift"])
    assert h["Code"] == b"SWIFT" and box.shape == (3,) and np.all(shift == box / 2), (h["Code"], box, shift)
    assert np.all((x > 0) & (x < box)), "the bodies must lie in the box [0, BoxSize]^3 readers assume"
    com = (m[:, None] * (x - shift)).sum(axis=0) / m.sum()
    assert np.all(np.abs(com) < 1e-5), f"less the Shift, the Plummer sphere's centre of mass is the origin: {com}"
    u = f["Units"].attrs
    L, M, T = u["Unit length in cgs (U_L)"], u["Unit mass in cgs (U_M)"], u["Unit time in cgs (U_t)"]
    assert abs(6.67430e-8 * M * T**2 / L**3 - 1) < 1e-12, "units contradict G = 1"
    assert u["UnitLength_in_cm"] == L and abs(u["UnitVelocity_in_cm_per_s"] * T / L - 1) < 1e-12
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
