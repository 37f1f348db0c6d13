"""FDTD material grid (materials.h5, <volume>_materials.h5): a plane of eps, sigma or the material."""
import os

from .cli import UsageError
from .h5files import open_h5, plot_path, pyplot, save

MATERIALS = "a tessera fdtd material grid ([output] materials: materials.h5, or <volume>_materials.h5)"
QUANTITIES = ["material", "eps_x", "eps_y", "eps_z", "sigma"]


def geometry(args):
    """One plane of one quantity: its values (per material, for `material`) and an image."""
    import numpy as np

    with open_h5(args.materials, MATERIALS) as f:
        held = [q for q in QUANTITIES if q in f]
        if not held or "cell_size" not in f.attrs:
            raise UsageError(f"{args.materials}: no material grid datasets or no 'cell_size' attribute: not {MATERIALS}")
        q = args.quantity or held[0]
        if q not in held:
            raise UsageError(f"{args.materials}: no {q} in this file (it holds {' '.join(held)})")
        ds = f[q]
        if ds.ndim != 3:
            raise UsageError(f"{args.materials}: /{q} has shape {ds.shape}, expected (nz, ny, nx)")
        first = [int(v) for v in f.attrs.get("first_cell", [0, 0, 0])]
        stride = [int(v) for v in f.attrs.get("stride", [1, 1, 1])]
        cell = [float(v) for v in f.attrs["cell_size"]]
        names = [str(n) for n in ds.attrs["materials"]] if q == "material" and "materials" in ds.attrs else []
        unit = ds.attrs.get("units", "1")
        unit = unit.decode() if isinstance(unit, bytes) else str(unit)
        count = ds.shape[2::-1]
        cells = [first[i] + stride[i] * np.arange(count[i]) for i in range(3)]
        a = "xyz".index(args.axis)
        k = args.index if args.index is not None else int(cells[a][len(cells[a]) // 2])
        where = np.nonzero(cells[a] == k)[0]
        if len(where) == 0:
            span = f"{cells[a][0]}..{cells[a][-1]}" + (f" in steps of {stride[a]}" if stride[a] != 1 else "")
            raise UsageError(f"--index {k}: the file holds cells {span} along {args.axis}")
        sel = [slice(None)] * 3
        sel[2 - a] = int(where[0])
        plane = np.asarray(ds[tuple(sel)])
    u, v = [i for i in range(3) if i != a]
    pos = (k + 0.5) * cell[a]
    print(f"{os.path.basename(args.materials)}: {q} at {args.axis} index {k} ({args.axis} = {1e3 * pos:.6g} mm): "
          f"{plane.shape[1]} x {plane.shape[0]} cells ({'xyz'[u]} x {'xyz'[v]})")
    plt = pyplot()
    from matplotlib.colors import BoundaryNorm, ListedColormap

    fig, ax = plt.subplots(figsize=(6, 4.5))
    ext = []
    for i in (u, v):  # cell edges, in mm: each sample covers stride cells from its own
        ext += [cells[i][0] * cell[i] * 1e3, (cells[i][-1] + stride[i]) * cell[i] * 1e3]
    if q == "material":
        present = sorted(int(m) for m in np.unique(plane))
        for m in present:
            label = names[m] if m < len(names) else str(m)
            print(f"  {m} {label}: {int(np.count_nonzero(plane == m))} cells")
        # One colour per material of the file (its index), a colour bar labelled with the names.
        n = max(len(names), max(present) + 1)
        cmap = ListedColormap(plt.get_cmap("tab10" if n <= 10 else "tab20")(np.arange(n) % (10 if n <= 10 else 20)))
        norm = BoundaryNorm(np.arange(n + 1) - 0.5, n)
        im = ax.imshow(plane, origin="lower", cmap=cmap, norm=norm, extent=ext, interpolation="nearest", aspect="equal")
        bar = fig.colorbar(im, ax=ax, ticks=np.arange(n))
        bar.ax.set_yticklabels([names[m] if m < len(names) else str(m) for m in range(n)])
        bar.set_label("material")
    else:
        shown = "" if unit == "1" else " " + unit
        print(f"min = {plane.min():.6g}{shown}, max = {plane.max():.6g}{shown}")
        im = ax.imshow(plane, origin="lower", cmap="viridis", extent=ext, interpolation="nearest", aspect="equal")
        fig.colorbar(im, ax=ax, label=f"{q} ({'relative' if unit == '1' else unit})")
    ax.set_xlabel(f"{'xyz'[u]} (mm)")
    ax.set_ylabel(f"{'xyz'[v]} (mm)")
    ax.set_title(f"{q}, {args.axis} = {1e3 * pos:.4g} mm (cell {k})", fontsize=9)
    save(fig, plot_path(args.output, args.materials, f"{q}_{args.axis}{k}"))


def register(sub):
    p = sub.add_parser("fdtd-geometry", help="fdtd: a plane of the material grid (material, eps, sigma; materials.h5)")
    p.add_argument("materials", metavar="MATERIALS_H5")
    p.add_argument("--quantity", choices=QUANTITIES,
                   help="what to draw (default: material, else the first the file holds)")
    p.add_argument("--axis", choices=["x", "y", "z"], default="z", help="normal of the plane (default z)")
    p.add_argument("--index", type=int, help="global cell index along the axis (default: the middle)")
    p.add_argument("-o", "--output",
                   help="PNG (default: beside MATERIALS_H5, <run>_<file>_<quantity>_<axis><index>.png)")
    p.set_defaults(run=geometry)
