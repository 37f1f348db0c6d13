"""fdtd_geometry_test.py TESSERA_POST WORK: `tessera-post fdtd-geometry` on a synthetic material grid.

A 10 x 8 x 6 grid of 2 mm cells, stride 1: a glass block (cells x 2..5, y 1..6) and a pec
column (x 7, y 3..4) on vacuum, on every z plane. Checks the cells counted per material, the
PNG (written, the four colours of the materials' colour bar present, its size), eps_x's range,
and that an index outside the file is refused naming the cells it holds.
Prints "FAIL: ..." and exits 1 at the first failure, "fdtd_geometry_test: OK" at the end.
"""
import os
import subprocess
import sys

import h5py
import numpy as np


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


post, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
mat = np.zeros((6, 8, 10), np.uint8)
mat[:, 1:7, 2:6] = 2
mat[:, 3:5, 7] = 1
path = os.path.join(work, "materials.h5")
with h5py.File(path, "w") as f:
    f.attrs["cell_size"] = [2e-3] * 3
    f.attrs["first_cell"] = [0, 0, 0]
    f.attrs["stride"] = [1, 1, 1]
    d = f.create_dataset("material", data=mat)
    d.attrs["materials"] = ["vacuum", "pec", "glass"]
    d.attrs["units"] = "1"
    e = f.create_dataset("eps_x", data=np.array([1, 1, 4], np.float32)[mat])
    e.attrs["units"] = "1"


def run(*args, code=0):
    p = subprocess.run([sys.executable, post, "fdtd-geometry", path, *args], capture_output=True, text=True)
    if p.returncode != code:
        fail(f"{args}: exit code {p.returncode}, expected {code}\n{p.stdout}{p.stderr}")
    return p.stdout + p.stderr


png = os.path.join(work, "plane.png")
out = run("--axis", "z", "--index", "3", "-o", png)
for line in ("material at z index 3 (z = 7 mm): 10 x 8 cells (x x y)", "0 vacuum: 54 cells", "1 pec: 2 cells",
             "2 glass: 24 cells"):
    if line not in out:
        fail(f"no '{line}' in\n{out}")
import matplotlib.image as mpimg  # noqa: E402

img = mpimg.imread(png)
if img.shape[0] < 300 or img.shape[1] < 400:
    fail(f"{png}: {img.shape[1]} x {img.shape[0]} pixels")
import matplotlib  # noqa: E402

colours = {tuple(np.round(np.array(matplotlib.colormaps["tab10"](i)[:3]) * 255).astype(int)) for i in range(3)}
pixels = {tuple(p) for p in np.round(img[:, :, :3].reshape(-1, 3) * 255).astype(int)}
missing = colours - pixels
if missing:
    fail(f"{png}: the colours of materials {missing} are not drawn")
print(f"ok: {png}: {img.shape[1]} x {img.shape[0]}, vacuum, pec and glass drawn in their colours")
out = run("--quantity", "eps_x", "--axis", "x", "-o", os.path.join(work, "eps.png"))
if "eps_x at x index 5" not in out or "min = 1, max = 4" not in out:
    fail(f"eps_x plane: {out}")
print("ok: eps_x on the middle x plane: 1 .. 4")
out = run("--index", "9", code=2)
if "--index 9: the file holds cells 0..5 along z" not in out:
    fail(f"index outside: {out}")
print("ok: --index 9 refused: the file holds cells 0..5 along z")
print("fdtd_geometry_test: OK")
