"""Plots as a person sees them: tessera-post writes the PNG, this opens it.

    /usr/bin/python3 tests/tools/plot_png_test.py TESSERA_POST WORK_DIR [CASE ...]

CASE: nbody-density (the default), fdtd-probes, fdtd-energy, roofline, bench-scaling, spmv-residual,
scaling-model.

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


def captured(module, fn, args):
    """The figure FN would save (module.save replaced), and what it printed."""
    import contextlib
    import io

    figs = []
    keep = module.save
    module.save = lambda fig, path: figs.append(fig)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            fn(args)
    finally:
        module.save = keep
    return figs[0], out.getvalue()


def inside_canvas(fig, texts):
    """Every text of TEXTS lies inside the PNG that save() writes (the tight bbox)."""
    fig.tight_layout()
    fig.canvas.draw()  # legends place their texts when drawn
    r = fig.canvas.get_renderer()
    canvas = fig.get_tightbbox(r).transformed(fig.dpi_scale_trans)
    for t in texts:
        b = t.get_window_extent(r)
        if b.x0 < canvas.x0 - 1 or b.y0 < canvas.y0 - 1 or b.x1 > canvas.x1 + 1 or b.y1 > canvas.y1 + 1:
            fail(f"text {t.get_text()!r} at {b} outside the canvas {canvas}")


def write_png(subcommand, source, png, *extra, min_h=300):
    out = subprocess.run([sys.executable, POST, subcommand, source, *extra, "-o", png], capture_output=True, text=True)
    print(out.stdout + out.stderr)
    if out.returncode != 0 or not os.path.exists(png):
        fail(f"{subcommand} did not write its PNG")
    w, h, colours, _ = png_stats(png)
    if not (400 <= w <= 2000 and min_h <= h <= 2000):
        fail(f"{png}: {w} x {h} pixels")
    if colours < 20:
        fail(f"{png}: {colours} colours: (nearly) one colour")
    return w, h, colours, out.stdout


# The PEC cavity's first resonances (inputs/fdtd/pec_cavity.toml, 1 mm cells), GHz; the first
# three ring in both probe columns, as they do in the cavity, the rest in one.
CAVITY_GHZ = {"p.Ez": [9.753, 14.551, 16.206, 17.314, 18.729, 19.486, 20.115],
              "p.Hx": [9.753, 14.551, 16.206, 18.729, 19.486, 21.636, 23.209, 25.623]}


def probes_file(path, n=20000, dt=1.90657e-12):
    t = np.arange(n) * dt
    cols = [np.arange(n), t]
    rng = np.random.default_rng(3)
    for name, ghz in CAVITY_GHZ.items():
        cols.append(sum(rng.uniform(0.5, 1.0) * np.sin(2 * np.pi * f * 1e9 * t + rng.uniform(0, 6)) for f in ghz))
    with h5py.File(path, "w") as f:
        f["probes"] = np.column_stack(cols)
        f["probes"].attrs["columns"] = np.array([c.encode() for c in ["step", "time", *CAVITY_GHZ]])
        # 3 energy rows: the source's rise, its end and one more (diagnostics.every = 10000).
        w = np.array([0.0, 4.4857e-11, 4.4850e-11])
        f["energy"] = np.column_stack([[0, 10000, 20000], [0, 1.9e-8, 3.8e-8], w / 2, w / 2, w])
        f["energy"].attrs["columns"] = np.array([c.encode() for c in ["step", "time", "electric", "magnetic",
                                                                       "total"]])


def fdtd_probes():
    import argparse
    from tessera_post import fdtd

    src = os.path.join(WORK, "probes.h5")
    probes_file(src)
    png = os.path.join(WORK, "probes.png")
    w, h, colours, _ = write_png("fdtd-probes", src, png)
    fig, text = captured(fdtd, fdtd.probes, argparse.Namespace(probes=src, column=None, threshold=0.02, max_peaks=8,
                                                               fmax=0.0, pad=8, output=png))
    series, spectrum = fig.axes[:2]
    # Not solid ink: no artist of the time panel draws more than ~2000 points.
    drawn = [len(line.get_xdata()) for line in series.lines]
    drawn += [len(p.vertices) // 2 for c in series.collections for p in c.get_paths()]
    if not drawn or max(drawn) > 2100:
        fail(f"the time-series panel draws {drawn} points per artist for 20000 samples: solid ink")
    # One label per resonance (9.753 is in both columns: labelled once), none overlapping another.
    labels = [a for a in spectrum.texts]
    names = [a.get_text() for a in labels]
    if len(names) != len(set(names)):
        fail(f"duplicate peak labels {sorted(names)}")
    expected = sorted(set(f for ghz in CAVITY_GHZ.values() for f in ghz))
    if len(names) != len(expected):
        fail(f"{len(names)} peak labels {sorted(names)} for the {len(expected)} resonances {expected}")
    fig.tight_layout()
    r = fig.canvas.get_renderer()
    boxes = [(a.get_text(), a.get_window_extent(r)) for a in labels]
    for i, (ta, ba) in enumerate(boxes):
        for tb, bb in boxes[i + 1:]:
            if ba.overlaps(bb):
                fail(f"peak labels {ta!r} and {tb!r} overlap ({ba} and {bb})")
    if "peaks marked" not in spectrum.get_title():
        fail(f"spectrum title {spectrum.get_title()!r}")
    inside_canvas(fig, labels + [series.xaxis.label, series.yaxis.label, spectrum.xaxis.label,
                                 spectrum.yaxis.label, spectrum.title, series.title])
    print(f"fdtd-probes: {w} x {h} PNG, {colours} colours, at most {max(drawn)} points per time-series artist, "
          f"{len(names)} peak labels, none overlapping, inside the canvas: OK")


def fdtd_energy():
    import argparse
    from tessera_post import fdtd

    src = os.path.join(WORK, "probes.h5")
    probes_file(src)
    png = os.path.join(WORK, "energy.png")
    w, h, colours, text = write_png("fdtd-energy", src, png)
    if "too few rows" not in text or "a loss, not a drift" in text or "\ndrift:" in text:
        fail("3 energy rows: expected 'too few rows', no verdict of a loss or a drift")
    fig, _ = captured(fdtd, fdtd.energy, argparse.Namespace(probes=src, source_end=None, output=png))
    a1, a2 = fig.axes[:2]
    if a2.lines or "too few rows" not in a2.get_title():
        fail(f"the after-the-source panel: {len(a2.lines)} line(s), title {a2.get_title()!r}")
    inside_canvas(fig, [a1.yaxis.label, a2.xaxis.label, a2.title] + a2.texts)
    print(f"fdtd-energy: {w} x {h} PNG, {colours} colours, 3 rows: 'too few rows', no verdict, inside the canvas: OK")


def nbody_density():
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


DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def in_figure(fig, texts):
    """Every text lies inside the figure as laid out (not only inside the PNG's tight crop)."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    box = fig.bbox
    for t in texts:
        b = t.get_window_extent(r)
        if b.x0 < box.x0 - 1 or b.y0 < box.y0 - 1 or b.x1 > box.x1 + 1 or b.y1 > box.y1 + 1:
            fail(f"text {t.get_text()!r} at {b} outside the figure {box}")


def roofline():
    import argparse
    import json
    from tessera_post import bench

    one = os.path.join(WORK, "one_row.json")
    report = json.load(open(os.path.join(DATA, "scaling_np4.json")))
    report["rows"] = report["rows"][:1]
    json.dump(report, open(one, "w"))
    for src in (one, os.path.join(DATA, "long_names.json")):
        png = os.path.join(WORK, os.path.basename(src) + ".png")
        w, h, colours, _ = write_png("roofline", src, png, min_h=150)  # one bar per row: short
        keep = bench.save_as_laid_out
        figs = []
        bench.save_as_laid_out = lambda fig, path: figs.append(fig)
        try:
            bench.roofline(argparse.Namespace(json=src, output=png))
        finally:
            bench.save_as_laid_out = keep
        ax = figs[0].axes[0]
        if not ax.get_xlabel().startswith("fraction of limit") or not ax.get_title():
            fail(f"x label {ax.get_xlabel()!r}, title {ax.get_title()!r}")
        lo, hi = ax.get_xlim()  # matplotlib keeps tick labels beyond the axis, never drawn
        shown = [t for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]
        in_figure(figs[0], [ax.xaxis.label, ax.title] + ax.get_yticklabels() + shown)
        print(f"roofline {os.path.basename(src)}: {w} x {h} PNG, {colours} colours, x label, title and case names "
              "inside the figure: OK")


def bench_scaling():
    import argparse
    from tessera_post import bench

    src = os.path.join(DATA, "scaling_np1.json")
    png = os.path.join(WORK, "scaling_one.png")
    w, h, colours, _ = write_png("bench-scaling", src, png)
    fig, _ = captured(bench, bench.scaling, argparse.Namespace(json=[src], output=png))
    ax = fig.axes[0]
    lo, hi = ax.get_xlim()
    ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
    if hi - lo < 1.5 or any(t != int(t) for t in ticks) or 1 not in ticks:
        fail(f"one rank count: x range {lo:g}..{hi:g}, ticks {ticks}: expected integer ranks around P = 1")
    inside_canvas(fig, [ax.xaxis.label, ax.yaxis.label] + ax.get_legend().get_texts())
    print(f"bench-scaling of one rank count: {w} x {h} PNG, {colours} colours, x {lo:g}..{hi:g} with integer "
          f"ticks: OK")


def spmv_residual():
    # A CG history in a run's folder; no -o: the PNG goes beside it, named after the run.
    run = os.path.join(WORK, "cg_run")
    os.makedirs(run, exist_ok=True)
    src = os.path.join(run, "spmv_history.h5")
    k = np.arange(19)
    with h5py.File(src, "w") as f:
        f["cg"] = np.column_stack([k, 0.34 ** k])
        f["cg"].attrs["columns"] = np.array([b"step", b"relative_residual"])
    png = os.path.join(run, "cg_run_spmv_history_residual.png")
    if os.path.exists(png):
        os.remove(png)
    out = subprocess.run([sys.executable, POST, "spmv-residual", src], capture_output=True, text=True)
    print(out.stdout + out.stderr)
    if out.returncode != 0 or f"wrote {png}" not in out.stdout or not os.path.exists(png):
        fail(f"spmv-residual without -o did not write {png}")
    w, h, colours, _ = png_stats(png)
    if not (400 <= w <= 2000 and 300 <= h <= 2000) or colours < 20:
        fail(f"{png}: {w} x {h} pixels, {colours} colours")
    print(f"spmv-residual: {w} x {h} PNG beside its input without -o, {colours} colours: OK")


def scaling_model():
    png = os.path.join(WORK, "summary.png")
    if os.path.exists(png):
        os.remove(png)
    w, h, colours, _ = write_png("scaling-model", "--summary", png)
    print(f"scaling-model --summary -o: {w} x {h} PNG, {colours} colours: OK")


CASES = {"spmv-residual": spmv_residual, "scaling-model": scaling_model, "nbody-density": nbody_density, "fdtd-probes": fdtd_probes, "fdtd-energy": fdtd_energy,
         "roofline": roofline, "bench-scaling": bench_scaling}

if __name__ == "__main__":
    for case in sys.argv[3:] or ["nbody-density"]:
        CASES[case]()
