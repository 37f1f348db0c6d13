"""N-body outputs: energy and momentum from diagnostics.h5, projected density of a snapshot."""
import os

import numpy as np

from .cli import UsageError
from .h5files import columns, dataset, open_h5, plot_path, pyplot, save

DIAG = "a tessera nbody diagnostics file (diagnostics.h5)"
SNAP = "a GADGET/SWIFT snapshot (snapshot_NNNN.h5)"


def energy(args):
    """Relative energy error and |total momentum| versus time."""
    import numpy as np

    with open_h5(args.diagnostics, DIAG) as f:
        ds = dataset(f, "nbody", DIAG)
        col = columns(ds, ["step", "time", "total", "energy_error", "px", "py", "pz"], DIAG)
        rows = ds[...]
    if len(rows) == 0:
        raise UsageError(f"{args.diagnostics}: /nbody has no rows yet")
    t = rows[:, col["time"]]
    err = rows[:, col["energy_error"]]
    p = rows[:, [col["px"], col["py"], col["pz"]]]
    pmag = np.linalg.norm(p, axis=1)
    step = rows[:, col["step"]]
    worst = int(np.argmax(np.abs(err)))

    print(f"{os.path.basename(args.diagnostics)}: {len(rows)} rows, steps {step[0]:.0f}..{step[-1]:.0f}, "
          f"t = {t[0]:.6g} .. {t[-1]:.6g}")
    print(f"energy: E = {rows[0, col['total']]:.10g} at t = {t[0]:.6g}, {rows[-1, col['total']]:.10g} at t = {t[-1]:.6g}")
    print(f"max |dE/E0| = {abs(err[worst]):.3e} at t = {t[worst]:.6g}")
    print(f"final dE/E0 = {err[-1]:.3e}")
    print(f"final momentum P = ({p[-1, 0]:.3e}, {p[-1, 1]:.3e}, {p[-1, 2]:.3e}), |P| = {pmag[-1]:.3e}")
    print(f"max |P| = {pmag.max():.3e}")

    plt = pyplot()
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(6, 5), sharex=True)
    a1.plot(t, err, marker=".", lw=1)
    a1.axhline(0, color="gray", lw=0.6)
    a1.set_ylabel("(E - E0) / |E0|")
    a1.set_title(os.path.basename(args.diagnostics), fontsize=8)
    a2.plot(t, pmag, marker=".", lw=1, color="C1")
    if pmag.max() > 0:
        a2.set_yscale("log")
    a2.set_ylabel("|total momentum|")
    a2.set_xlabel("time")
    save(fig, plot_path(args.output, args.diagnostics, "energy"))


def _bodies(f, path, part_types):
    """Positions (N x 3, float64) and masses of the chosen particle types of a snapshot."""
    import h5py
    import numpy as np

    header = f.get("Header")
    if not isinstance(header, h5py.Group):
        raise UsageError(f"{path}: no /Header group: not {SNAP}")
    table = np.asarray(header.attrs.get("MassTable", np.zeros(6)), dtype=np.float64)
    # SWIFT's Shift (tessera writes positions in [0, BoxSize], shifted by half the box): positions
    # are reported in the frame the run used.
    shift = np.asarray(header.attrs.get("Shift", np.zeros(3)), dtype=np.float64)
    if shift.shape != (3,) or not np.all(np.isfinite(shift)):
        raise UsageError(f"{path}: /Header Shift is {shift!r}, expected 3 finite numbers")
    total = header.attrs.get("NumPart_Total")
    high = header.attrs.get("NumPart_Total_HighWord")
    present = [k for k in range(6) if isinstance(f.get(f"PartType{k}"), h5py.Group)]
    if part_types is None:
        part_types = present
        if not part_types:
            raise UsageError(f"{path}: no /PartType<k> group: not {SNAP} (or an empty one)")
    xs, ms = [], []
    for k in part_types:
        if k not in present:
            raise UsageError(f"{path}: no /PartType{k} (present: {', '.join(f'PartType{j}' for j in present) or 'none'})")
        g = f[f"PartType{k}"]
        coords = dataset(f, f"PartType{k}/Coordinates", SNAP)
        if coords.ndim != 2 or coords.shape[1] != 3:
            raise UsageError(f"{path}: /PartType{k}/Coordinates has shape {coords.shape}, expected (N, 3)")
        n = coords.shape[0]
        if total is not None:
            declared = int(total[k]) + (int(high[k]) << 32 if high is not None else 0)
            if declared != n:
                raise UsageError(f"{path}: /Header NumPart_Total[{k}] = {declared} but /PartType{k}/Coordinates "
                                 f"holds {n} bodies")
        if "Masses" in g:
            m = np.asarray(g["Masses"][...], dtype=np.float64)
            if m.shape != (n,):
                raise UsageError(f"{path}: /PartType{k}/Masses has shape {m.shape}, expected ({n},)")
        elif table[k] > 0:
            m = np.full(n, table[k])
        else:
            raise UsageError(f"{path}: /PartType{k} has no Masses and /Header MassTable[{k}] is 0")
        xs.append(np.asarray(coords[...], dtype=np.float64) - shift)
        ms.append(m)
    return np.concatenate(xs), np.concatenate(ms), part_types, float(header.attrs.get("Time", float("nan")))


def density(args):
    """Mass per pixel of the bodies projected along an axis; N, mass, centre of mass, half-mass radius."""
    import numpy as np

    axis = "xyz".index(args.axis)
    with open_h5(args.snapshot, SNAP) as f:
        x, m, types, time = _bodies(f, args.snapshot, args.part_type)
        f_units = {k: float(v) for k, v in f["Units"].attrs.items()} if "Units" in f else {}
    n = len(m)
    if n == 0:
        raise UsageError(f"{args.snapshot}: the snapshot holds no bodies")
    mtot = m.sum()
    com = (m[:, None] * x).sum(axis=0) / mtot
    r = np.linalg.norm(x - com, axis=1)
    order = np.argsort(r, kind="stable")
    cum = np.cumsum(m[order])
    rhalf = r[order][np.searchsorted(cum, 0.5 * mtot)]

    print(f"{os.path.basename(args.snapshot)}: t = {time:.6g}, N = {n} "
          f"({', '.join(f'PartType{k}' for k in types)})")
    print(f"total mass = {mtot:.6g}")
    print(f"centre of mass = ({com[0]:.3e}, {com[1]:.3e}, {com[2]:.3e})")
    print(f"half-mass radius = {rhalf:.4g} (about the centre of mass)")

    u, v = [i for i in range(3) if i != axis]
    # Pixels from N: about 2 sqrt(N) per side (90 for N = 2048), 64..512; sparse pixels stay black.
    bins = args.bins or int(np.clip(round(2 * np.sqrt(n)), 64, 512))
    if args.extent:
        centre = (com[u], com[v])
        half = args.extent
        frame = "about the centre of mass (--extent)"
    else:  # robust: about the median body, out to the 90th percentile of the bodies' distance
        centre = (float(np.median(x[:, u])), float(np.median(x[:, v])))
        reach = np.maximum(np.abs(x[:, u] - centre[0]), np.abs(x[:, v] - centre[1]))
        half = 1.1 * float(np.percentile(reach, 90)) or max(1.0, float(reach.max()))
        frame = "about the median body, to 1.1 x the 90th percentile of its distance (--extent sets it)"
    edges_u = np.linspace(centre[0] - half, centre[0] + half, bins + 1)
    edges_v = np.linspace(centre[1] - half, centre[1] + half, bins + 1)
    img, _, _ = np.histogram2d(x[:, u], x[:, v], bins=[edges_u, edges_v], weights=m)
    pixel = (2 * half / bins) ** 2
    sigma = _smooth(img.T / pixel)  # surface density, rows along v
    inside = img.sum()
    print(f"projected along {args.axis}: {bins} x {bins} pixels"
          f"{'' if args.bins else f' (from N = {n}; --bins sets it)'} over "
          f"[{edges_u[0]:.4g}, {edges_u[-1]:.4g}] x [{edges_v[0]:.4g}, {edges_v[-1]:.4g}] {frame}, "
          f"{100 * inside / mtot:.1f}% of the mass inside, peak surface density {sigma.max():.4g}")

    plt = pyplot()
    from matplotlib.colors import LogNorm

    fig, ax = plt.subplots(figsize=(5.5, 5))
    positive = sigma[sigma > 1e-3 * sigma.max()]
    norm = LogNorm(vmin=positive.min(), vmax=positive.max(), clip=True) if positive.size and positive.max() > positive.min() else None
    im = ax.imshow(np.where(sigma >= positive.min(), sigma, np.nan) if positive.size else sigma, origin="lower", norm=norm, cmap="magma",
                   extent=[edges_u[0], edges_u[-1], edges_v[0], edges_v[-1]], interpolation="nearest")
    ax.set_facecolor("black")
    length, mass = _unit_names(f_units)
    ax.set_xlabel(f"{'xyz'[u]} [{length}]")
    ax.set_ylabel(f"{'xyz'[v]} [{length}]")
    ax.set_title(f"{os.path.basename(args.snapshot)}  t = {time:.4g}  N = {n}", fontsize=8)
    fig.colorbar(im, ax=ax, label=f"surface density [{mass} / {length}$^2$]")
    save(fig, plot_path(args.output, args.snapshot, f"density_{args.axis}"))


def _smooth(a):
    """A Gaussian of 1 pixel (mass-conserving inside): 2 sqrt(N) pixels per side hold about a
    quarter body each, which unsmoothed is speckle rather than a density."""
    k = np.exp(-0.5 * np.arange(-3, 4) ** 2)
    k /= k.sum()
    a = np.apply_along_axis(lambda r: np.convolve(r, k, mode="same"), 0, a)
    return np.apply_along_axis(lambda r: np.convolve(r, k, mode="same"), 1, a)


# Names of SWIFT's /Units (cgs) that astronomers read at a glance.
_LENGTHS = {"pc": 3.0856775814913673e18, "kpc": 3.0856775814913673e21, "Mpc": 3.0856775814913673e24,
            "AU": 1.495978707e13, "cm": 1.0, "m": 100.0, "km": 1e5}
_MSUN = 1.98841e33


def _unit_names(units):
    """("kpc", "1e10 M$_\\odot$") from a snapshot's /Units; ("code length", "code mass") without it."""
    ul, um = units.get("Unit length in cgs (U_L)"), units.get("Unit mass in cgs (U_M)")
    length = next((k for k, c in _LENGTHS.items() if ul and abs(ul / c - 1) < 1e-4), None)
    if length is None:
        length = f"{ul:.4g} cm" if ul else "code length"
    if not um:
        return length, "code mass"
    ratio = um / _MSUN
    exp = round(np.log10(ratio)) if ratio > 0 else 0
    if abs(ratio / 10.0**exp - 1) < 1e-3:
        return length, "M$_\\odot$" if exp == 0 else f"10$^{{{exp}}}$ M$_\\odot$"
    return length, f"{um:.4g} g"


def register(sub):
    p = sub.add_parser("nbody-energy", help="nbody: relative energy error and |momentum| vs time (diagnostics.h5)")
    p.add_argument("diagnostics", metavar="DIAG_H5")
    p.add_argument("-o", "--output", help="PNG (default: beside DIAG_H5, <run>_diagnostics_energy.png)")
    p.set_defaults(run=energy)
    p = sub.add_parser("nbody-density", help="nbody: projected density image of a snapshot; N, mass, centre, half-mass radius")
    p.add_argument("snapshot", metavar="SNAPSHOT")
    p.add_argument("-o", "--output", help="PNG (default: beside SNAPSHOT, <run>_<snapshot>_density_<axis>.png)")
    p.add_argument("--axis", choices=["x", "y", "z"], default="z", help="projection axis (default z)")
    p.add_argument("--bins", type=_positive_int,
                   help="pixels per side (default from N: 2 sqrt(N), at least 64, at most 512)")
    p.add_argument("--extent", type=float, default=0.0,
                   help="half width of the image about the centre of mass (default: about the median body, "
                        "1.1 x the 90th percentile of the bodies' distance, so outliers do not frame it)")
    p.add_argument("--part-type", type=int, action="append", choices=range(6), metavar="K",
                   help="read /PartType<K> only (repeatable; default: every type present)")
    p.set_defaults(run=density)


def _positive_int(s):
    import argparse

    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{s}' is not an integer")
    if v < 1:
        raise argparse.ArgumentTypeError(f"{v} must be >= 1")
    return v
