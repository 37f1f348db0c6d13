"""Runs small N-body decks with tessera and loads their snapshots with yt, with no arguments
but the file name, as docs/nbody.md tells users to:

    ds = yt.load("snapshot_0001.h5")

and checks, against what the deck and its units imply (computed here, not read from the file):
the body count; the total mass in grams; every body inside ds.domain_left_edge ..
ds.domain_right_edge and the centre of mass (at the origin of the run) at the domain's centre;
ds.current_time in seconds; and gravity: the potential energy yt's positions and masses give
with G in cgs, and the kinetic energy of yt's velocities, in erg, against the run's own
diagnostics.h5 times the energy unit M V^2 (so the units are consistent with G = 1).

Exits 77 (ctest SKIP_RETURN_CODE) when yt cannot be imported by this interpreter.

usage: check_snapshot_yt.py TESSERA WORKDIR
"""
import math
import os
import shutil
import subprocess
import sys
import warnings

SKIP = 77
try:
    import h5py
    import numpy as np
    import yt
except ImportError as e:
    print(f"SKIP: {sys.executable} cannot import yt, h5py or numpy ({e}); "
          "on Debian: apt-get install python3-yt")
    sys.exit(SKIP)

G_CGS = 6.67430e-8          # cm^3 g^-1 s^-2 (CODATA 2018)
KPC = 3.0856775814913673e21  # cm
PC = KPC / 1e3
MSUN = 1.98841e33           # g (IAU 2015 nominal)

# name: the deck's tables, its bodies, softening, total mass, the snapshot's time and step, and
# the units two of the deck's keys (or the defaults) give: length in cm, mass in g (None: from
# length and velocity) and velocity in cm/s (None: from length and mass with G = 1).
CASES = {
    # The defaults: 1 kpc and 1e10 Msun, G = 1 makes the velocity 207.4 km/s. Single precision.
    "plummer_default_units": dict(
        tables="""
[run]
steps = 5
[output]
every = 5
[diagnostics]
every = 5
[nbody]
n = 64
ic = "plummer"
dt = 0.01
eps = 0.05
""", n=64, eps=0.05, total_mass=1.0, time=0.05, step=5, snapshot="snapshot_0001.h5",
        length=KPC, mass=1e10 * MSUN, velocity=None),
    # Two Plummer spheres 10 length units apart (bodies far from the origin), double precision,
    # units of 1 pc and 1 km/s: G = 1 makes the mass unit L V^2 / G_cgs = 232.5 Msun.
    "galaxies_pc_kms": dict(
        tables="""
[run]
steps = 4
[output]
every = 4
[diagnostics]
every = 4
[nbody]
n = 50
ic = "galaxies"
total_mass = 3.0
precision = "double"
dt = 0.02
eps = 0.1
[nbody.units]
length_in_cm = 3.0856775814913673e18
velocity_in_cm_per_s = 1e5
""", n=50, eps=0.1, total_mass=3.0, time=0.08, step=4, snapshot="snapshot_0001.h5",
        length=PC, mass=None, velocity=1e5),
}


def close(a, b, rel, what):
    if not abs(a - b) <= rel * abs(b):
        raise AssertionError(f"{what}: {a!r}, expected {b!r} (relative difference "
                             f"{abs(a - b) / abs(b):.3e} > {rel:g})")


def check(tessera, workdir, name, c):
    run_dir = os.path.join(workdir, name)
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    deck = os.path.join(run_dir, "deck.toml")
    with open(deck, "w") as f:
        f.write('[run]\nsolver = "nbody"\nbackend = "cpu"\noutput_dir = "out"\n'
                + c["tables"].replace("[run]\n", ""))
    subprocess.run([tessera, "run", deck], cwd=run_dir, check=True)
    out = os.path.join(run_dir, "out")

    # The units the deck implies: two given, G = 1 fixes the third.
    L = c["length"]
    if c["velocity"] is None:
        M = c["mass"]
        V = math.sqrt(G_CGS * M / L)
    else:
        V = c["velocity"]
        M = L * V * V / G_CGS
    T = L / V
    energy = M * V * V  # erg

    ds = yt.load(os.path.join(out, c["snapshot"]))
    ad = ds.all_data()
    print(f"{name}: {type(ds).__name__}, domain {ds.domain_left_edge} .. {ds.domain_right_edge}, "
          f"t = {ds.current_time.to('s')}, length unit {ds.length_unit.to('cm')}, mass unit {ds.mass_unit.to('g')}")

    m = ad["all", "particle_mass"].to("g").d
    x = ad["all", "particle_position"].to("cm").d
    v = ad["all", "particle_velocity"].to("cm/s").d
    assert m.shape == (c["n"],) and x.shape == (c["n"], 3), (m.shape, x.shape)
    assert ds.particle_type_counts.get("PartType1") == c["n"], ds.particle_type_counts

    close(m.sum(), c["total_mass"] * M, 1e-6, "total mass in g")

    left, right = ds.domain_left_edge.to("cm").d, ds.domain_right_edge.to("cm").d
    outside = np.any((x < left) | (x > right), axis=1)
    assert not outside.any(), (f"{outside.sum()} of {len(x)} bodies outside the domain {left} .. {right} cm, "
                               f"e.g. {x[outside][0]}")
    # Both initial conditions put the centre of mass at rest at the run's origin: yt must place
    # it at the centre of the domain.
    com = (m[:, None] * x).sum(axis=0) / m.sum()
    centre, width = (left + right) / 2, right - left
    assert np.all(np.abs(com - centre) < 1e-6 * width), f"centre of mass {com} cm, domain centre {centre} cm"

    close(float(ds.current_time.to("s")), c["time"] * T, 1e-9, "ds.current_time in s")

    # Gravity in cgs from yt's numbers against the run's energies (G = 1) in M V^2.
    eps = c["eps"] * L
    dx = x[:, None, :] - x[None, :, :]
    r = np.sqrt((dx * dx).sum(axis=2) + eps * eps)
    iu = np.triu_indices(len(m), 1)
    W = -G_CGS * (m[:, None] * m[None, :] / r)[iu].sum()
    K = 0.5 * (m * (v * v).sum(axis=1)).sum()
    with h5py.File(os.path.join(out, "diagnostics.h5"), "r") as f:
        d = f["nbody"]
        cols = [str(s) for s in d.attrs["columns"]]  # variable-length UTF-8: str
        row = d[list(d[:, cols.index("step")]).index(c["step"])]
    close(W, row[cols.index("potential")] * energy, 1e-5, "potential energy in erg (yt positions and masses, G_cgs)")
    close(K, row[cols.index("kinetic")] * energy, 1e-5, "kinetic energy in erg (yt velocities and masses)")
    print(f"{name}: {c['n']} bodies, {m.sum():.6e} g, inside the domain, centre of mass at its centre, "
          f"t = {c['time']} x {T:.6e} s, W = {W:.6e} erg, K = {K:.6e} erg: ok")


def main():
    tessera, workdir = sys.argv[1:3]
    os.makedirs(workdir, exist_ok=True)
    yt.set_log_level(40)
    warnings.filterwarnings("ignore", message="Storage directory from yt config")
    print(f"yt {yt.__version__} ({os.path.dirname(yt.__file__)})")
    for name, c in CASES.items():
        check(tessera, workdir, name, c)
    print("yt loads tessera's snapshots with the right positions, units and time")


if __name__ == "__main__":
    main()
