"""material_grid_test.py MODE ...: the material grid and voxel geometry from the command line (issue 34).

  refusals TESSERA MPIEXEC DECK WORK: bad voxel files written here with h5py, each run on 2 ranks
      through DECK (material_grid_voxels.toml): exit code 2, a message naming the deck line,
      file, dataset and value, and no output directory created.
  files OUT: what material_grid.toml wrote: materials.h5 (every quantity, the whole grid) and
      geo_materials.h5 (a region, stride 2 along x): types, shapes, units, placement, the
      material names, eps and sigma per material, the .xmf pointing at them; no geo_*.h5 field
      file holds a material quantity.
  smoothing SMOOTH STAIR: materials.h5 of material_grid.toml with fdtd.smoothing = true against
      the staircase's: the same eps everywhere but next to a dielectric interface, values between
      the two media's there, a component seeing another value than another somewhere
      (anisotropy), nothing changed next to the pec cylinder's surface alone.
  eps_map TESSERA MPIEXEC COMPARE DECK WORK: a random eps_r map (float voxels, fixed seed) in
      DECK's place run on 1 and 3 ranks: bitwise the same fields and probes (COMPARE:
      fdtd_compare_outputs); and not those of a map of one value (the map acts).
Prints "ok: ..." per check, "FAIL: ..." and exit 1 at the first failure.
"""
import os
import re
import subprocess
import sys

import h5py
import numpy as np


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


RANK_EXIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support", "rank_exit.sh")


def refusals(tessera, mpiexec, deck, work):
    os.makedirs(work, exist_ok=True)
    shape = (10, 12, 16)  # z y x: the deck's grid
    good = np.zeros(shape, np.int32)

    def h5(name, dataset, data, dtype=None):
        path = os.path.join(work, name)
        with h5py.File(path, "w") as f:
            f.create_dataset(dataset, data=data, dtype=dtype)
        return path

    bad_number = good.copy()
    bad_number[4, 3, 2] = 7
    strings = np.full(shape, b"ab", dtype="S2")
    compound = np.zeros(shape, dtype=[("a", "i4"), ("b", "f4")])
    eps = np.full(shape, 2.0)
    eps[1, 2, 3] = np.nan
    cases = [
        ("number", h5("number.h5", "material", bad_number), [],
         r"--set fdtd.geometry.0.file=\S+: fdtd.geometry.0.: .*number.h5, dataset \"material\": material number 7 at "
         r"voxel \(x, y, z\) = \(2, 3, 4\) \(element \[4\]\[3\]\[2\]\): 'materials' names 4 material\(s\), numbers 0 .. 3"),
        ("flat", h5("flat.h5", "material", good[0]), [],
         r"flat.h5, dataset \"material\": has 2 dimension\(s\) \(12 x 16\); a voxel map is 3D"),
        ("strings", h5("strings.h5", "material", strings), [],
         r"strings.h5, dataset \"material\": holds strings; a voxel map holds integers"),
        ("compound", h5("compound.h5", "material", compound), [],
         r"compound.h5, dataset \"material\": holds a compound type"),
        ("nan", h5("nan.h5", "material", eps), [],
         r"nan.h5, dataset \"material\": holds floats \(eps_r per voxel\): give the material"),
        ("nan_eps", os.path.join(work, "nan.h5"), ["--set", "fdtd.geometry.0.materials=", "--set",
                                                  "fdtd.geometry.0.material=glass"], None),
        ("dataset", h5("other.h5", "elsewhere", good), [],
         r"other.h5, dataset \"material\": no such dataset \(no \"/material\" in the file\)"),
        ("missing", os.path.join(work, "absent.h5"), [], r"absent.h5: no such file|absent.h5.*does not exist"),
        ("outside", h5("big.h5", "material", np.zeros((10, 12, 17), np.int32)), [],
         r"fdtd.geometry.0. \('.*big.h5'\) lies outside the domain: it spans 0 .. 0.017 m along x"),
    ]
    for name, path, extra, pattern in cases:
        out = os.path.join(work, "out_" + name)
        if name == "nan_eps":
            # An eps_r map: the deck's 'materials' swapped for 'material' through a copy of it.
            text = open(deck).read().replace('materials = "vacuum pec glass lossy"', 'material = "glass"')
            local = os.path.join(work, "material_grid_voxels.toml")
            open(local, "w").write(text)
            run_deck, extra = local, []
            pattern = (r"--set fdtd.geometry.0.file=\S+: fdtd.geometry.0.: .*nan.h5, dataset \"material\": eps_r = nan at "
                       r"voxel \(x, y, z\) = \(3, 2, 1\) \(element \[1\]\[2\]\[3\]\): eps_r must be finite and >= 1")
        else:
            run_deck = deck
        # Each rank through rank_exit.sh, which prints its exit code: every rank must end with 2.
        cmd = [mpiexec, "-n", "2", "--oversubscribe", "/bin/sh", RANK_EXIT, tessera, "run", run_deck, "--backend",
               "cpu", "--set", "fdtd.geometry.0.file=" + path, "--set", "run.output_dir=" + out] + extra
        # Open MPI ends the other ranks as soon as one exits non-zero: let each end by itself
        # (mpiexec then reports 0, so each rank's own code is what is checked).
        env = dict(os.environ, OMPI_MCA_orte_abort_on_non_zero_status="0")
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
        text = p.stdout + p.stderr
        for rank in (0, 1):
            if f"rank {rank} exit 2\n" not in text:
                fail(f"{name}: rank {rank} did not end with exit code 2\n{text}")
        if not re.search(pattern, text):
            fail(f"{name}: no match for {pattern!r} in\n{text}")
        if os.path.exists(out):
            fail(f"{name}: the output directory {out} was created")
        line = next(l for l in text.splitlines() if re.search(pattern, l))
        ok(f"{name}: exit 2 on both ranks, no output directory: {line.strip()[:200]}")


def eps_map(tessera, mpiexec, compare, deck, work):
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(34)
    shape = (10, 12, 16)  # z y x: the deck's grid
    maps = {"random": rng.uniform(1.0, 6.0, shape), "uniform": np.full(shape, 4.0)}
    # The deck's material numbers swapped for a host material: the voxels give its eps_r.
    text = open(deck).read().replace('materials = "vacuum pec glass lossy"', 'material = "glass"')
    local = os.path.join(work, "eps_map.toml")
    open(local, "w").write(text)

    def run(name, ranks):
        path = os.path.join(work, name + ".h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("material", data=maps[name])
        out = os.path.join(work, f"{name}_np{ranks}")
        cmd = [mpiexec, "-n", str(ranks), "--oversubscribe", tessera, "run", local, "--backend", "cpu", "--set",
               "fdtd.geometry.0.file=" + path, "--set", "run.output_dir=" + out, "--overwrite"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail(f"{name} on {ranks} rank(s): exit code {p.returncode}\n{p.stdout}{p.stderr}")
        return out

    one, three, uniform = run("random", 1), run("random", 3), run("uniform", 1)
    p = subprocess.run([compare, one, three, "30"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or "DIFFERENT" in p.stdout or "probes" not in p.stdout:
        fail(f"the eps_r map on 3 ranks differs from 1 rank:\n{p.stdout}{p.stderr}")
    ok("an eps_r map: 3 ranks give 1 rank's fields and probes bitwise")
    p = subprocess.run([compare, one, uniform, "30"], capture_output=True, text=True, timeout=60)
    if p.returncode != 1 or "Ez: DIFFERENT" not in p.stdout:
        fail(f"the random eps_r map gives the fields of a uniform one:\n{p.stdout}{p.stderr}")
    ok("the eps_r map acts: its fields differ from a map of one value")


def files(out):
    names = ["vacuum", "pec", "glass", "lossy"]
    eps_of = np.array([1.0, 1.0, 4.0, 2.0], np.float32)
    sigma_of = np.array([0.0, 0.0, 0.1, 5.0], np.float32)
    with h5py.File(os.path.join(out, "materials.h5"), "r") as f:
        if sorted(f.keys()) != ["eps_x", "eps_y", "eps_z", "material", "sigma"]:
            fail(f"materials.h5 holds {sorted(f.keys())}")
        mat = f["material"]
        if mat.dtype != np.uint8 or mat.shape != (10, 12, 16):
            fail(f"material is {mat.dtype} {mat.shape}")
        if list(mat.attrs["materials"]) != names or list(f.attrs["materials"]) != names:
            fail(f"material names {list(mat.attrs['materials'])}")
        m = mat[...]
        counts = np.bincount(m.ravel(), minlength=4)
        if not all(counts > 0):
            fail(f"not every material painted: {counts}")
        for q, unit in [("eps_x", "1"), ("eps_y", "1"), ("eps_z", "1"), ("sigma", "S/m"), ("material", "1")]:
            d = f[q]
            if d.attrs["units"] != unit:
                fail(f"{q} units {d.attrs['units']!r}, expected {unit!r}")
            if not np.allclose(d.attrs["origin"], [5e-4] * 3) or not np.allclose(d.attrs["spacing"], [1e-3] * 3):
                fail(f"{q} origin {d.attrs['origin']} spacing {d.attrs['spacing']}")
            if not np.allclose(d.attrs["voxel_origin"], [0] * 3) or not np.allclose(d.attrs["voxel_size"], [1e-3] * 3):
                fail(f"{q} voxel placement {d.attrs['voxel_origin']} {d.attrs['voxel_size']}")
        for q in ("eps_x", "eps_y", "eps_z"):
            if f[q].dtype != np.float32 or not np.array_equal(f[q][...], eps_of[m]):
                fail(f"{q} is not eps_r of each cell's material")
        if not np.array_equal(f["sigma"][...], sigma_of[m]):
            fail("sigma is not each cell's material's")
        # The sphere's centre cell (9, 6, 5) is lossy, the cylinder's axis cell (6, 6, 5) pec,
        # a box corner (4, 2, 1) glass, the domain's corner vacuum.
        for (i, j, k), want in [((9, 6, 5), 3), ((6, 6, 5), 1), ((4, 2, 1), 2), ((0, 0, 0), 0)]:
            if m[k, j, i] != want:
                fail(f"cell ({i}, {j}, {k}) is {names[m[k, j, i]]}, expected {names[want]}")
        ok(f"materials.h5: 5 datasets (10, 12, 16), units, placement, names {names}, cells per material {list(counts)}")
    with h5py.File(os.path.join(out, "geo_materials.h5"), "r") as g:
        if sorted(g.keys()) != ["eps_z", "material", "sigma"]:
            fail(f"geo_materials.h5 holds {sorted(g.keys())}")
        # Region: cells x 2..15 (stride 2: 2, 4, ..., 14), y 0..12, z 3..8.
        want = m[3:8, 0:12, 2:15:2]
        if not np.array_equal(g["material"][...], want):
            fail(f"geo material {g['material'].shape} is not materials.h5[3:8, :, 2:15:2] {want.shape}")
        if not np.allclose(g["material"].attrs["origin"], [2.5e-3, 0.5e-3, 3.5e-3]) or \
                not np.allclose(g["material"].attrs["spacing"], [2e-3, 1e-3, 1e-3]) or \
                not np.allclose(g["material"].attrs["voxel_origin"], [2e-3, 0, 3e-3]):
            fail(f"geo placement {dict(g['material'].attrs)}")
        if list(g.attrs["stride"]) != [2, 1, 1] or list(g.attrs["first_cell"]) != [2, 0, 3]:
            fail(f"geo stride {g.attrs['stride']} first_cell {g.attrs['first_cell']}")
        ok(f"geo_materials.h5: eps_z, material, sigma {want.shape}, every 2nd cell along x from cell 2")
    xmf = open(os.path.join(out, "materials.xmf")).read()
    for q in ("eps_x", "eps_y", "eps_z", "sigma", "material"):
        if f'materials.h5:/{q}' not in xmf:
            fail(f"materials.xmf does not name {q}")
    if 'Center="Cell"' not in xmf or 'Dimensions="11 13 17"' not in xmf:
        fail("materials.xmf: not cell data on the cells' corners (11 13 17 points)")
    ok("materials.xmf: five cell arrays on a 17 x 13 x 11 point grid")
    for name in os.listdir(out):
        if name.startswith("geo_0") and name.endswith(".h5"):
            with h5py.File(os.path.join(out, name), "r") as f:
                if sorted(f.keys()) != ["Ez"]:
                    fail(f"{name} holds {sorted(f.keys())}, expected Ez only")
    ok("geo_<step>.h5 field files hold Ez only")


def smoothing(smooth_dir, stair_dir):
    with h5py.File(os.path.join(smooth_dir, "materials.h5")) as f, \
            h5py.File(os.path.join(stair_dir, "materials.h5")) as g:
        eps = {q: (f[q][...], g[q][...]) for q in ("eps_x", "eps_y", "eps_z")}
    changed = 0
    for q, (sm, st) in eps.items():
        diff = sm != st
        changed += int(diff.sum())
        if not np.all(np.isin(st, [1.0, 2.0, 4.0])):
            fail(f"{q}: the staircase holds values other than the media's")
        # Smoothed values lie between the smallest and largest eps of the media present.
        if diff.any() and (sm[diff].min() < 1.0 - 1e-6 or sm[diff].max() > 4.0 + 1e-6):
            fail(f"{q}: a smoothed value outside [1, 4]")
        inter = diff & ~np.isin(sm, [1.0, 2.0, 4.0])
        if inter.sum() < 20:
            fail(f"{q}: only {int(inter.sum())} nodes hold an average")
        ok(f"{q}: {int(diff.sum())} nodes differ from the staircase, {int(inter.sum())} hold an average")
    if not np.any(eps["eps_x"][0] != eps["eps_z"][0]):
        fail("every node sees the same eps on x and z: no anisotropic average")
    # The nodes that differ lie in or next to a cell whose material differs from a neighbour's
    # (26-neighbourhood): what the solver looks at, two cells across at most.
    with h5py.File(os.path.join(stair_dir, "materials.h5")) as g:
        mat = g["material"][...]
    offsets = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)]
    edge = np.zeros(mat.shape, bool)
    for o in offsets:
        edge |= np.roll(mat, o, axis=(0, 1, 2)) != mat
    near = np.zeros(mat.shape, bool)
    for o in offsets:
        near |= np.roll(edge, o, axis=(0, 1, 2))
    for q, (sm, stq) in eps.items():
        far = (sm != stq) & ~near
        if far.any():
            fail(f"{q}: {int(far.sum())} nodes changed away from any interface")
    ok(f"smoothing: {changed} node values changed, all next to an interface, anisotropic")
    print("material_grid_test: OK")


if __name__ == "__main__":
    if sys.argv[1] == "refusals":
        refusals(*sys.argv[2:6])
    elif sys.argv[1] == "eps_map":
        eps_map(*sys.argv[2:7])
    elif sys.argv[1] == "files":
        files(sys.argv[2])
    elif sys.argv[1] == "smoothing":
        smoothing(sys.argv[2], sys.argv[3])
    else:
        fail("unknown mode " + sys.argv[1])
    print("material_grid_test: OK")
