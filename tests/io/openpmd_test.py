"""openPMD output ([output] openpmd = true) of both solvers, on 1 and 2 ranks:

  - every file passes openpmd_check.py (the base standard 1.1.0's required attributes and types);
  - FDTD: yt's open_pmd frontend loads fields_<step>.h5 with E in V/m, the domain of the grid
    (extent cells x cell size), the time in s, and every component equal, index by index, to the
    native fields_<step, 8 digits>.h5 (native (nz, ny, nx) against openPMD (nx, ny, nz), so a
    swapped axis fails); the staggered positions and H's timeOffset are the Yee scheme's;
  - N-body: an h5py reader applying unitSI recovers, in SI, the SWIFT snapshot's positions
    (less its Shift), velocities and masses of the same step, converted with its /Units;
  - 1 and 2 ranks write identical files: every dataset and attribute, but `date` (N-body after
    step 0: the same layout and attributes, values within 1e-5, as its sums are not bitwise
    across rank counts).

Exits 77 (ctest SKIP_RETURN_CODE) when this interpreter has no yt.

usage: openpmd_test.py TESSERA FDTD_DECK NBODY_DECK WORKDIR MPIEXEC NP_FLAG PREFLAGS
"""
import os
import shlex
import shutil
import subprocess
import sys

try:
    import h5py
    import numpy as np
    import yt
except ImportError as e:
    print(f"SKIP: {sys.executable} cannot import yt, h5py or numpy ({e})")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openpmd_check import check_file  # noqa: E402

tessera, fdtd_deck, nbody_deck, workdir, mpiexec, np_flag, preflags = sys.argv[1:8]
workdir = os.path.abspath(workdir)
if os.path.isdir(workdir):
    shutil.rmtree(workdir)
os.makedirs(workdir)
env = dict(os.environ, OMP_NUM_THREADS="1")


def run(name, deck, ranks, sets):
    out = os.path.join(workdir, name)
    cmd = [mpiexec, np_flag, str(ranks), *shlex.split(preflags), tessera, "run", deck,
           "--set", f"run.output_dir={out}", "--set", "output.openpmd=true"]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{name}: tessera failed ({r.returncode}):\n{' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return out, r.stdout + r.stderr


def openpmd_files(out):
    d = os.path.join(out, "openpmd")
    return sorted(os.path.join(root, f) for root, _, names in os.walk(d) for f in names)


def check_standard(files):
    problems = [p for f in files for p in check_file(f)]
    assert not problems, "openPMD checker:\n" + "\n".join(problems)


def identical(a, b, exact=True):
    """Every dataset and attribute of a equals b's (but the root's date). exact=False: float
    datasets within 1e-5 (and their checksums not compared), for N-body steps after the first,
    whose force sums the rank count reorders (docs/nbody.md: not bitwise across rank counts)."""
    skip = set() if exact else {"checksum"}
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        names_a, names_b = [], []
        fa.visit(names_a.append)
        fb.visit(names_b.append)
        assert names_a == names_b, f"{a} and {b} hold different objects"
        for obj_a, obj_b in [(fa, fb)] + [(fa[n], fb[n]) for n in names_a]:
            keys = sorted(set(obj_a.attrs) - ({"date"} if obj_a.name == "/" else set()))
            assert keys == sorted(set(obj_b.attrs) - ({"date"} if obj_b.name == "/" else set())), obj_a.name
            keys = [k for k in keys if k not in skip]
            for k in keys:
                assert np.array_equal(np.asarray(obj_a.attrs[k]), np.asarray(obj_b.attrs[k])), f"{obj_a.name}@{k}"
            if isinstance(obj_a, h5py.Dataset):
                assert obj_a.dtype == obj_b.dtype and obj_a.shape == obj_b.shape, obj_a.name
                if exact or obj_a.dtype.kind != "f":
                    assert np.array_equal(obj_a[()], obj_b[()]), obj_a.name
                else:
                    assert np.allclose(obj_a[()], obj_b[()], rtol=1e-5, atol=1e-5 * np.abs(obj_a[()]).max()), obj_a.name


# ---- FDTD: the ParaView test's deck (Ez Hx Hy staggered, E H collocated), outputs every 10 steps
CELLS = (12, 10, 8)
CELL = 2e-3
DT = 2e-12
YEE = {"E": {"x": (0.5, 0, 0), "y": (0, 0.5, 0), "z": (0, 0, 0.5)},
       "H": {"x": (0, 0.5, 0.5), "y": (0.5, 0, 0.5), "z": (0.5, 0.5, 0)}}
fdtd = {}
for ranks, sets in ((1, ["fdtd.ranks=[1,1,1]"]), (2, ["fdtd.ranks=[1,2,1]"])):
    fdtd[ranks], log = run(f"fdtd_{ranks}", fdtd_deck, ranks, sets)
    assert "wrote fdtd_%d/openpmd/fields/fields_30.h5" % ranks in log, log
files = openpmd_files(fdtd[1])
assert [os.path.basename(f) for f in files] == [f"{v}_{s}.h5" for v in ("centred", "fields") for s in (0, 10, 20, 30)], files
check_standard(files + openpmd_files(fdtd[2]))

yt.set_log_level(40)
for step in (10, 30):
    native = h5py.File(os.path.join(fdtd[1], f"fields_{step:08d}.h5"), "r")
    path = os.path.join(fdtd[1], "openpmd", "fields", f"fields_{step}.h5")
    ds = yt.load(path)
    assert type(ds).__name__ == "OpenPMDDataset", type(ds)
    assert np.allclose(ds.domain_left_edge.to("m").v, 0) and np.allclose(
        ds.domain_right_edge.to("m").v, np.array(CELLS) * CELL), (ds.domain_left_edge, ds.domain_right_edge)
    assert tuple(ds.domain_dimensions) == CELLS, ds.domain_dimensions
    assert np.isclose(ds.current_time.to("s").v, step * DT), ds.current_time
    grid = ds.covering_grid(0, ds.domain_left_edge, ds.domain_dimensions)
    for rec, comp in (("E", "z"), ("H", "x"), ("H", "y")):
        field = grid[("openPMD", f"{rec}_{comp}")]
        unit = "V/m" if rec == "E" else "A/m"
        values = field.to(unit).v  # raises when the unit dimension is not the field's
        expected = native[f"{rec}{comp}"][: CELLS[2], : CELLS[1], : CELLS[0]].transpose(2, 1, 0)
        assert values.shape == CELLS and np.abs(expected).max() > 0, (rec, comp, values.shape)
        assert np.array_equal(values, expected.astype(np.float64)), f"{rec}_{comp} at step {step} differs from native"
    with h5py.File(path, "r") as f:
        it = f[f"data/{step}"]
        assert np.isclose(it.attrs["time"], step * DT) and it.attrs["dt"] == DT
        assert it["meshes/E"].attrs["timeOffset"] == 0 and np.isclose(it["meshes/H"].attrs["timeOffset"], -DT / 2)
        assert list(it["meshes/E"].attrs["axisLabels"]) == [b"x", b"y", b"z"]
        for rec, comps in (("E", "z"), ("H", "xy")):
            assert sorted(it[f"meshes/{rec}"]) == list(comps)
            for c in comps:
                assert tuple(it[f"meshes/{rec}/{c}"].attrs["position"]) == YEE[rec][c], (rec, c)
        # The collocated volume: all six components, at the cell centres.
    with h5py.File(os.path.join(fdtd[1], "openpmd", "centred", f"centred_{step}.h5"), "r") as f:
        m = f[f"data/{step}/meshes"]
        nat = h5py.File(os.path.join(fdtd[1], f"centred_{step:08d}.h5"), "r")
        for rec in "EH":
            for i, c in enumerate("xyz"):
                assert tuple(m[f"{rec}/{c}"].attrs["position"]) == (0.5, 0.5, 0.5)
                assert np.array_equal(m[f"{rec}/{c}"][()], nat[rec][..., i].transpose(2, 1, 0)), (rec, c)
for f1, f2 in zip(files, openpmd_files(fdtd[2])):
    identical(f1, f2)

# ---- N-body: the small deck, snapshots at steps 0 and 5 (snapshot_0000, snapshot_0001)
nbody = {r: run(f"nbody_{r}", nbody_deck, r, [])[0] for r in (1, 2)}
files = openpmd_files(nbody[1])
assert [os.path.basename(f) for f in files] == ["nbody_0.h5", "nbody_5.h5"], files
check_standard(files + openpmd_files(nbody[2]))


def si(group, record):
    """The record in SI, as openPMD readers compute it: value * unitSI (+ positionOffset)."""
    rec = group[record]
    if isinstance(rec, h5py.Dataset):
        return rec[()].astype(np.float64) * rec.attrs["unitSI"]
    out = np.stack([rec[c][()].astype(np.float64) * rec[c].attrs["unitSI"] for c in "xyz"], axis=1)
    if record == "position":
        off = group["positionOffset"]
        out += np.stack([np.full(out.shape[0], off[c].attrs["value"] * off[c].attrs["unitSI"]) for c in "xyz"], axis=1)
    return out


for index, step in ((0, 0), (1, 5)):
    with h5py.File(os.path.join(nbody[1], f"snapshot_{index:04d}.h5"), "r") as snap, \
         h5py.File(os.path.join(nbody[1], "openpmd", f"nbody_{step}.h5"), "r") as f:
        u = snap["Units"].attrs
        length, velocity, mass = (u["UnitLength_in_cm"] * 1e-2, u["UnitVelocity_in_cm_per_s"] * 1e-2,
                                  u["UnitMass_in_g"] * 1e-3)
        pt = snap["PartType1"]
        order = np.argsort(pt["ParticleIDs"][()])
        it = f[f"data/{step}"]
        bodies = it["particles/bodies"]
        mine = np.argsort(bodies["id"][()])
        assert np.array_equal(bodies["id"][()][mine], pt["ParticleIDs"][()][order])
        x = (pt["Coordinates"][()] - snap["Header"].attrs["Shift"]) * length
        assert np.allclose(si(bodies, "position")[mine], x[order], rtol=1e-12, atol=1e-9 * np.abs(x).max())
        assert np.allclose(si(bodies, "velocity")[mine], pt["Velocities"][()][order].astype(np.float64) * velocity, rtol=1e-12, atol=0)
        assert np.allclose(si(bodies, "mass")[mine], pt["Masses"][()][order].astype(np.float64) * mass, rtol=1e-12, atol=0)
        t_snap = snap["Header"].attrs["Time"] * u["UnitTime_in_s"]
        assert np.isclose(it.attrs["time"] * it.attrs["timeUnitSI"], t_snap), (it.attrs["time"], t_snap)
        assert list(bodies["position"].attrs["unitDimension"]) == [1, 0, 0, 0, 0, 0, 0]
        assert list(bodies["velocity"].attrs["unitDimension"]) == [1, 0, -1, 0, 0, 0, 0]
        assert list(bodies["mass"].attrs["unitDimension"]) == [0, 1, 0, 0, 0, 0, 0]
for f1, f2 in zip(files, openpmd_files(nbody[2])):
    identical(f1, f2, exact=f1.endswith("nbody_0.h5"))
# The checker can fail: a variable-length UTF-8 string, a missing gridUnitSI, a float32 unitSI.
bad = os.path.join(workdir, "fields_10.h5")
shutil.copy(os.path.join(fdtd[1], "openpmd", "fields", "fields_10.h5"), bad)
with h5py.File(bad, "r+") as f:
    f.attrs["software"] = "tessera"  # h5py writes str as variable-length UTF-8
    del f["data/10/meshes/E"].attrs["gridUnitSI"]
    f["data/10/meshes/H/x"].attrs["unitSI"] = np.float32(1)
found = check_file(bad)
for expected in ("'software' is not a fixed-length string", "missing required attribute 'gridUnitSI'",
                 "'unitSI' has type float32"):
    assert any(expected in p for p in found), (expected, found)
print("openPMD: FDTD and N-body series pass the checker, yt and h5py; 1 and 2 ranks write identical files")
