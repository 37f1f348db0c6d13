"""Plots as a person sees them: tessera-post writes the PNG, this opens it.

    /usr/bin/python3 tests/tools/plot_png_test.py TESSERA_POST WORK_DIR

nbody-density on a SWIFT-style snapshot (N = 2048, kpc and 1e10 Msun in /Units, a Plummer-like
cluster plus far outliers): the PNG has a sane size, is not one colour, the cluster fills the
frame (coloured pixels are a large share of the image), the axis labels carry the file's units,
and every text (labels, title, colour bar) lies inside the figure's tight bounding box.
"""
import os
import subprocess
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402

POST, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(POST)), "tessera_post", ".."))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def snapshot(path, n=2048):
    rng = np.random.default_rng(7)
    # Plummer sphere (a = 1) positions, plus 1% of bodies thrown 30 lengths out.
    r = 1.0 / np.sqrt(rng.uniform(0.01, 0.99, n) ** (-2.0 / 3.0) - 1.0)
    d = rng.standard_normal((n, 3))
    x = r[:, None] * d / np.linalg.norm(d, axis=1)[:, None]
    x[: n // 100] *= 30.0
    with h5py.File(path, "w") as f:
        h = f.create_group("Header")
        h.attrs["NumPart_Total"] = np.array([0, n, 0, 0, 0, 0], dtype=np.uint32)
        h.attrs["MassTable"] = np.zeros(6)
        h.attrs["Time"] = 1.5
        u = f.create_group("Units")
        u.attrs["Unit length in cgs (U_L)"] = 3.0856775814913673e21
        u.attrs["Unit mass in cgs (U_M)"] = 1.98841e43
        g = f.create_group("PartType1")
        g["Coordinates"] = x
        g["Masses"] = np.full(n, 1.0 / n)


def png_stats(path):
    img = mpimg.imread(path)[:, :, :3]
    h, w = img.shape[:2]
    colours = len(np.unique((img * 255).astype(int).reshape(-1, 3), axis=0))
    return w, h, colours, img


def main():
    snap = os.path.join(WORK, "snapshot_0001.h5")
    snapshot(snap)
    png = os.path.join(WORK, "density.png")
    out = subprocess.run([sys.executable, POST, "nbody-density", snap, "-o", png], capture_output=True, text=True)
    print(out.stdout + out.stderr)
    if out.returncode != 0 or not os.path.exists(png):
        fail("nbody-density did not write its PNG")
    w, h, colours, img = png_stats(png)
    if not (400 <= w <= 2000 and 400 <= h <= 2000):
        fail(f"{png}: {w} x {h} pixels")
    if colours < 50:
        fail(f"{png}: {colours} colours: (nearly) one colour")
    # The image area: inside the axes, bodies' pixels are coloured (magma), empty ones black.
    # The cluster fills the frame: at least a quarter of the axes' pixels hold mass.
    from tessera_post import nbody
    from tessera_post.h5files import pyplot
    import argparse

    figs = []
    keep = nbody.save
    nbody.save = lambda fig, path: figs.append(fig)
    try:
        nbody.density(argparse.Namespace(snapshot=snap, axis="z", bins=None, extent=0.0, part_type=None,
                                         output=png))
    finally:
        nbody.save = keep
    fig = figs[0]
    ax = fig.axes[0]
    sigma = ax.images[0].get_array()
    filled = float(np.mean(~np.ma.getmaskarray(np.ma.masked_invalid(sigma))))
    print(f"{sigma.shape[0]} x {sigma.shape[1]} pixels, {100 * filled:.0f}% hold mass")
    if sigma.shape[0] < 64:
        fail(f"only {sigma.shape[0]} pixels per side for N = 2048")
    if filled < 0.25:
        fail(f"the cluster fills {100 * filled:.0f}% of the frame: framed by outliers")
    if ax.get_xlabel() != "x [kpc]" or ax.get_ylabel() != "y [kpc]":
        fail(f"axis labels {ax.get_xlabel()!r}, {ax.get_ylabel()!r}: expected the file's kpc")
    if "N = 2048" not in ax.get_title():
        fail(f"title {ax.get_title()!r}")
    fig.tight_layout()
    r = fig.canvas.get_renderer()
    # What save() writes: the figure cropped to its tight bbox (inches -> display pixels).
    canvas = fig.get_tightbbox(r).transformed(fig.dpi_scale_trans)
    for t in [ax.xaxis.label, ax.yaxis.label, ax.title, fig.axes[1].yaxis.label]:
        b = t.get_window_extent(r)
        if b.x0 < canvas.x0 - 1 or b.y0 < canvas.y0 - 1 or b.x1 > canvas.x1 + 1 or b.y1 > canvas.y1 + 1:
            fail(f"text {t.get_text()!r} at {b} outside the canvas {canvas}")
    print(f"nbody-density: {w} x {h} PNG, {colours} colours, labels {ax.get_xlabel()!r} inside the canvas: OK")


if __name__ == "__main__":
    main()
