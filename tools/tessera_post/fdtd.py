"""FDTD outputs: a slice of a field volume, probe signals and their spectra, the energy history."""
import os

from .cli import UsageError
from .h5files import columns, dataset, open_h5, plot_path, pyplot, save

FIELDS = "a tessera fdtd field output (<volume>_<step>.h5)"
PROBES = "a tessera fdtd probe file (probes.h5)"
COMPONENTS = ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"]
# Yee staggering of each component, in cells (x, y, z): docs/fdtd.md.
OFFSET = {"Ex": (0.5, 0, 0), "Ey": (0, 0.5, 0), "Ez": (0, 0, 0.5),
          "Hx": (0, 0.5, 0.5), "Hy": (0.5, 0, 0.5), "Hz": (0.5, 0.5, 0)}


def slice_(args):
    """One plane of one component of a field file: min, max and rms, and an image."""
    import numpy as np

    comp = args.component
    if comp not in COMPONENTS:
        raise UsageError(f"--component {comp}: not a field component (one of {' '.join(COMPONENTS)})")
    with open_h5(args.fields, FIELDS) as f:
        # A staggered file holds components on their Yee nodes; a collocated one (fdtd.volume
        # collocated = true) the vectors E and H, (nz, ny, nx, 3), at the cell centres.
        present = [c for c in COMPONENTS if c in f]
        vectors = [v for v in ("E", "H") if v in f and f[v].ndim == 4 and f[v].shape[3] == 3]
        held = present + [v + "xyz"[i] for v in vectors for i in range(3)]
        if not held or "cell_size" not in f.attrs:
            raise UsageError(f"{args.fields}: no field component datasets or no 'cell_size' attribute: not {FIELDS}")
        if comp not in held:
            raise UsageError(f"{args.fields}: no component {comp} in this file (it holds "
                             f"{' '.join(present + [v + ' (vector)' for v in vectors])})")
        if comp in present:
            ds, pick, offset = f[comp], (), OFFSET[comp]
            if ds.ndim != 3:
                raise UsageError(f"{args.fields}: /{comp} has shape {ds.shape}, expected (nz, ny, nx)")
        else:
            ds, pick, offset = f[comp[0]], ("xyz".index(comp[1]),), (0.5, 0.5, 0.5)
        first = [int(v) for v in f.attrs.get("first_cell", [0, 0, 0])]
        stride = [int(v) for v in f.attrs.get("stride", [1, 1, 1])]
        cell = [float(v) for v in f.attrs["cell_size"]]
        time = float(f.attrs.get("time_h" if comp.startswith("H") else "time", float("nan")))
        step = int(f.attrs.get("step", -1))
        count = ds.shape[2::-1]  # (nx, ny, nz)
        # Node m along an axis is cell first + m * stride (the last one may be the node on the
        # high wall of the domain, one past the last cell).
        cells = [first[i] + stride[i] * np.arange(count[i]) for i in range(3)]
        # A plane output ([[fdtd.volume]] with min = max along one axis) is one cell thin: its
        # normal is the axis to slice along; a full volume is sliced along z unless told.
        thin = [i for i in range(3) if count[i] == 1 and min(count) < max(count)]
        if args.axis is None:
            a = thin[0] if thin else 2
        else:
            a = "xyz".index(args.axis)
            if thin and a not in thin:
                t = thin[0]
                raise UsageError(f"--axis {args.axis}: {os.path.basename(args.fields)} holds a single {'xyz'[t]} plane "
                                 f"({'xyz'[t]} index {cells[t][0]}), whose {args.axis} slices are lines: use --axis "
                                 f"{'xyz'[t]} (the default for this file)")
        axis = "xyz"[a]
        valid = cells[a]
        k = args.index if args.index is not None else int(valid[len(valid) // 2])
        where = np.nonzero(valid == k)[0]
        if len(where) == 0:
            span = f"{valid[0]}..{valid[-1]}" + (f" in steps of {stride[a]}" if stride[a] != 1 else "")
            raise UsageError(f"--index {k}: the file holds cells {span} along {axis}")
        local = int(where[0])
        sel = [slice(None)] * 3
        sel[2 - a] = local  # HDF5 order is (z, y, x)
        plane = np.asarray(ds[tuple(sel) + pick], dtype=np.float64)  # rows: the slower remaining axis
    u, v = [i for i in range(3) if i != a]
    unit = "V/m" if comp.startswith("E") else "A/m"
    rms = float(np.sqrt(np.mean(plane ** 2))) if plane.size else 0.0
    pos = (k + offset[a]) * cell[a]
    print(f"{os.path.basename(args.fields)}: step {step}, t = {time:.6g} s")
    print(f"{comp} at {axis} index {k} ({axis} = {1e3 * pos:.6g} mm): "
          f"{plane.shape[1]} x {plane.shape[0]} values ({'xyz'[u]} x {'xyz'[v]})"
          + ("" if comp in present else f", cell centres (from {comp[0]})"))
    print(f"min = {plane.min():.6g} {unit}, max = {plane.max():.6g} {unit}, rms = {rms:.6g} {unit}")

    # The colour scale: a soft source's own cell can be orders of magnitude above the wave it
    # launches, so the limit is a percentile of |value| (--clip), not the largest value; values
    # beyond it are drawn saturated. symlog instead shows everything up to the largest value,
    # linear within 1/100 of the clip level and logarithmic above.
    mag = np.abs(plane)
    largest = float(mag.max()) if plane.size else 0.0
    level = float(np.percentile(mag, args.clip)) if plane.size else 0.0
    if level <= 0:
        level = largest or 1.0
    from matplotlib.colors import Normalize, SymLogNorm

    if args.scale == "symlog":
        top = max(largest, level)
        linthresh = level / 100
        norm = SymLogNorm(linthresh=linthresh, vmin=-top, vmax=top, base=10)
        extend = "neither"
        print(f"colour scale: symlog up to +-{top:.4g} {unit}, linear within +-{linthresh:.4g} {unit} "
              f"(1/100 of the {args.clip:g}th percentile of |{comp}|)")
    else:
        norm = Normalize(vmin=-level, vmax=level)
        beyond = int(np.count_nonzero(mag > level))
        extend = "both" if beyond else "neither"
        print(f"colour scale: linear +-{level:.4g} {unit}, the {args.clip:g}th percentile of |{comp}| "
              f"(largest {largest:.4g}); {beyond} value(s) ({100 * beyond / max(plane.size, 1):.2g}%) beyond it drawn "
              f"saturated (--clip 100: the largest; --scale symlog: everything)")

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ext = []
    for i in (u, v):
        lo = (cells[i][0] + offset[i] - 0.5 * stride[i]) * cell[i] * 1e3
        hi = (cells[i][-1] + offset[i] + 0.5 * stride[i]) * cell[i] * 1e3
        ext += [lo, hi]
    im = ax.imshow(plane, origin="lower", cmap="RdBu_r", norm=norm, extent=ext,
                   interpolation="nearest", aspect="equal")
    ax.set_xlabel(f"{'xyz'[u]} (mm)")
    ax.set_ylabel(f"{'xyz'[v]} (mm)")
    ax.set_title(f"{comp}, {axis} = {1e3 * pos:.4g} mm, step {step}, t = {time:.4g} s", fontsize=8)
    fig.colorbar(im, ax=ax, label=f"{comp} ({unit})", extend=extend)
    save(fig, plot_path(args.output, args.fields, f"{comp}_{axis}{k}"))


def _peaks(freqs, mag, pad, threshold, lowest_bin):
    """Local maxima of a zero-padded Hann spectrum, interpolated (parabola through log magnitudes).

    A maximum must be the largest value within 2 unpadded bins either side (the Hann main-lobe
    half width), which rejects the side lobes of stronger peaks, and above threshold x the
    largest peak."""
    import numpy as np

    w = 2 * pad
    top = mag[lowest_bin:].max() if len(mag) > lowest_bin else 0.0
    found = []
    if top <= 0:
        return found
    for i in range(max(lowest_bin, 1), len(mag) - 1):
        if mag[i] < threshold * top or mag[i] < mag[i - 1] or mag[i] < mag[i + 1]:
            continue
        lo, hi = max(0, i - w), min(len(mag), i + w + 1)
        if mag[i] < mag[lo:hi].max():
            continue
        if found and i - found[-1][2] <= w:  # a flat top: keep the first
            continue
        a, b, c = np.log(mag[i - 1:i + 2] + 1e-300)
        d = 0.5 * (a - c) / (a - 2 * b + c) if a - 2 * b + c < 0 else 0.0
        df = freqs[1] - freqs[0]
        found.append((freqs[i] + d * df, mag[i] / top, i))
    return [(fr, rel) for fr, rel, _ in found]


# The time-series panel draws at most this many columns: 20000 samples of a ringing cavity
# drawn as a line are solid ink; the min..max of each time bin shows the envelope instead.
ENVELOPE_COLUMNS = 1000


def _envelope(t, x, columns):
    """Centre time, min and max of X in COLUMNS equal bins of samples."""
    import numpy as np

    edges = np.linspace(0, len(x), columns + 1).astype(int)
    tc = np.array([0.5 * (t[a] + t[b - 1]) for a, b in zip(edges[:-1], edges[1:])])
    lo = np.minimum.reduceat(x, edges[:-1])
    hi = np.maximum.reduceat(x, edges[:-1])
    return tc, lo, hi


def _peak_labels(peaks, width):
    """[(freq, rel, signal)] -> [(freq, highest rel, [signals])]: peaks of several signals closer
    than WIDTH (Hz) are one resonance."""
    merged = []
    for fr, rel, who in sorted(peaks):
        if merged and fr - merged[-1][0] <= width:
            f0, r0, w0 = merged[-1]
            merged[-1] = (f0, max(r0, rel), w0 + [who])
        else:
            merged.append((fr, rel, [who]))
    return [(fr, rel, sorted(set(who))) for fr, rel, who in merged]


def _place_labels(fig, ax, labels):
    """Text labels above points [(x, y, colour, text)]; a label that would overlap one already
    placed goes up a row (resonances 0.5 GHz apart are closer than their labels are wide)."""
    fig.tight_layout()  # what save() does: overlaps are measured where the axes end up
    placed = []
    renderer = fig.canvas.get_renderer()
    for x, y, colour, txt in sorted(labels):
        dy = 4
        while True:
            a = ax.annotate(txt, (x, y), textcoords="offset points", xytext=(0, dy), ha="center",
                            fontsize=6, color=colour)
            box = a.get_window_extent(renderer).expanded(1.05, 1.0)
            if not any(box.overlaps(b) for b in placed) or dy > 80:
                placed.append(box)
                break
            a.remove()
            dy += 7


def probes(args):
    """Probe signals and their spectra; the resonance peaks of each signal."""
    import numpy as np

    with open_h5(args.probes, PROBES) as f:
        ds = dataset(f, "probes", PROBES, " (or its deck has no [[fdtd.probe]])")
        col = columns(ds, ["step", "time"], PROBES)
        rows = ds[...]
    signals = [c for c in col if c not in ("step", "time")]
    if args.column:
        for c in args.column:
            if c not in col or c in ("step", "time"):
                raise UsageError(f"--column {c}: no such probe column (columns: {' '.join(signals)})")
        signals = args.column
    n = len(rows)
    if n < 16:
        raise UsageError(f"{args.probes}: /probes has {n} samples, too few for a spectrum")
    t = rows[:, col["time"]]
    dts = np.diff(t)
    dt = float(np.median(dts))
    if dt <= 0 or np.max(np.abs(dts - dt)) > 1e-6 * dt:
        raise UsageError(f"{args.probes}: the samples are not evenly spaced in time (a run restarted with "
                         "another fdtd.probes.every?)")
    pad = args.pad
    nfft = pad * (1 << int(np.ceil(np.log2(n))))
    freqs = np.fft.rfftfreq(nfft, dt)
    window = np.hanning(n)
    lowest = 2 * pad  # the first two unpadded bins hold what is left of the mean
    spectra = {}
    for name in signals:
        x = rows[:, col[name]]
        spectra[name] = np.abs(np.fft.rfft((x - x.mean()) * window, nfft))
    # The band shown and searched: --fmax, else up to where every spectrum has fallen below
    # 1e-3 of its peak (plus a quarter): the Yee time step puts Nyquist far above anything the
    # source excites or the grid resolves.
    if args.fmax:
        fmax = min(args.fmax, freqs[-1])
        band = f"to {fmax:.4g} Hz (--fmax)"
    else:
        edge = 0.0
        for mag in spectra.values():
            peak = mag[lowest:].max() if len(mag) > lowest else 0.0
            if peak > 0:
                edge = max(edge, float(freqs[np.nonzero(mag >= 1e-3 * peak)[0][-1]]))
        fmax = min(freqs[-1], 1.25 * edge) if edge > 0 else freqs[-1]
        band = f"to {fmax:.4g} Hz, where the spectra fall below 1e-3 of their peaks (--fmax sets it)"
    keep = freqs <= fmax
    print(f"{os.path.basename(args.probes)}: {n} samples every {dt:.6g} s ({n * dt:.6g} s), "
          f"bins of {1 / (n * dt):.4g} Hz (peaks interpolated), Nyquist {freqs[-1]:.4g} Hz")
    print(f"spectrum {band}")
    found = {}
    for name in signals:
        mag = spectra[name]
        peaks = _peaks(freqs[keep], mag[keep], pad, args.threshold, lowest)
        strongest = sorted(sorted(peaks, key=lambda p: -p[1])[:args.max_peaks])
        found[name] = strongest
        if not strongest:
            print(f"{name}: no peak (a zero signal?)")
            continue
        listed = ", ".join(f"{fr:.6g} ({rel:.2g})" for fr, rel in strongest)
        print(f"{name}: {len(strongest)} peaks [Hz] (relative amplitude): {listed}")
        print(f"{name}: first resonance {strongest[0][0]:.6g} Hz")

    plt = pyplot()
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 6))
    env = n > ENVELOPE_COLUMNS
    for i, name in enumerate(signals):
        colour = f"C{i % 10}"
        x = rows[:, col[name]]
        scale = float(np.abs(x).max()) or 1.0
        label = f"{name} (max {scale:.3g})"
        if env:
            tc, lo, hi = _envelope(t, x / scale, ENVELOPE_COLUMNS)
            a1.fill_between(tc * 1e9, lo, hi, color=colour, alpha=0.45, lw=0, label=label)
        else:
            a1.plot(t * 1e9, x / scale, lw=0.7, color=colour, label=label)
        mag = spectra[name][keep]
        # Normalised to the strongest peak (the scale the relative amplitudes are given in).
        top = mag[lowest:].max() if len(mag) > lowest and mag[lowest:].max() > 0 else (mag.max() or 1.0)
        a2.semilogy(freqs[keep] / 1e9, mag / top, lw=0.8, color=colour)
        if found[name]:
            fr = np.array([p[0] for p in found[name]])
            rel = np.array([p[1] for p in found[name]])
            a2.plot(fr / 1e9, rel * 1.4, "v", color=colour, markersize=5, markeredgecolor="k", markeredgewidth=0.4)
    a1.set_xlabel("time (ns)")
    a1.set_ylabel("signal / max |signal|")
    a1.set_ylim(-1.1, 1.45)  # room for the legend above the signals
    a1.legend(fontsize=7, loc="upper right", ncol=len(signals))
    if env:
        a1.set_title(f"{n} samples: min..max of each of {ENVELOPE_COLUMNS} time bins", fontsize=7)
    a2.set_xlabel("frequency (GHz)")
    a2.set_ylabel("|FFT| (Hann) / strongest peak")
    a2.set_xlim(0, fmax / 1e9)
    a2.set_ylim(1e-6, 60)
    a2.set_title("peaks marked (GHz; black: found in several signals)", fontsize=7)
    # One label per resonance: the same peak in several signals (within two unpadded bins, the
    # Hann main lobe) is labelled once, in black, above its highest marker.
    width = 2.0 / (n * dt)
    labels = _peak_labels([(p[0], p[1], i) for i, name in enumerate(signals) for p in found[name]], width)
    _place_labels(fig, a2, [(fr / 1e9, 1.4 * rel, "k" if len(who) > 1 else f"C{who[0] % 10}", f"{fr / 1e9:.4g}")
                            for fr, rel, who in labels])
    save(fig, plot_path(args.output, args.probes, "spectra"))


# Rows after the source ends needed before the energy's course is called a drift or a loss:
# with fewer, one rounding step or one sample of the source's tail decides the verdict.
MIN_ROWS_AFTER = 5


def energy(args):
    """Electric, magnetic and total energy versus time; after the sources end, the energy's drift
    (a closed lossless domain) or its loss (absorbing faces, lossy materials)."""
    import numpy as np

    with open_h5(args.probes, PROBES) as f:
        ds = dataset(f, "energy", PROBES)
        col = columns(ds, ["step", "time", "electric", "magnetic", "total"], PROBES)
        rows = ds[...]
    if len(rows) == 0:
        raise UsageError(f"{args.probes}: /energy has no rows (diagnostics.every = 0?)")
    t, w = rows[:, col["time"]], rows[:, col["total"]]
    imax = int(np.argmax(w))
    print(f"{os.path.basename(args.probes)}: {len(rows)} energy rows, steps "
          f"{rows[0, col['step']]:.0f}..{rows[-1, col['step']]:.0f}, t = {t[0]:.6g} .. {t[-1]:.6g} s")
    print(f"initial energy = {w[0]:.10g} J at t = {t[0]:.6g} s")
    print(f"max energy = {w[imax]:.10g} J at t = {t[imax]:.6g} s")
    print(f"final energy = {w[-1]:.10g} J at t = {t[-1]:.6g} s")
    if args.source_end is not None:
        after = np.nonzero(t >= args.source_end)[0]
        how = f"--source-end {args.source_end:g} s"
    else:  # the sources have put in (nearly) all they will: the first row within 0.1% of the maximum
        after = np.nonzero(w >= (1 - 1e-3) * w[imax])[0][:1]
        after = np.arange(after[0], len(w)) if len(after) else after
        how = "first row within 0.1% of the maximum; --source-end sets it"
    s = int(after[0]) if len(after) else None
    # After the source, a closed lossless domain keeps its energy up to the scheme's drift
    # (rounding); absorbing faces (CPML), lossy materials and open faces take energy out. Only
    # the first is a drift: a falling energy is reported as what it is.
    falls = False
    measured = s is not None and len(w) - s >= MIN_ROWS_AFTER and w[s] != 0
    if not measured:
        left = 0 if s is None else len(w) - s
        print(f"energy after the source ends: too few rows ({left} from the source end, at least {MIN_ROWS_AFTER} "
              f"needed to tell a drift from a loss; a smaller diagnostics.every gives more; {how})"
              + ("" if s is None or w[s] != 0 else " (no energy)"))
    else:
        rel = (w[s:] - w[s]) / w[s]
        worst = int(np.argmax(np.abs(rel)))
        print(f"source end: t = {t[s]:.6g} s, step {rows[s, col['step']]:.0f} ({how})")
        print(f"energy after the source ends: final (W - W_end)/W_end = {rel[-1]:.3e}, "
              f"largest |W - W_end|/W_end = {abs(rel[worst]):.3e} at t = {t[s + worst]:.6g} s")
        falls = rel[-1] < -1e-3
        if falls:
            print(f"energy leaving the domain: {100 * (1 + rel[-1]):.3g}% of W_end remains at the end (absorbed by "
                  "CPML or lossy materials, or radiated out): a loss, not a drift of the scheme")
        else:
            print(f"drift: |W - W_end|/W_end stays within {abs(rel[worst]):.3e} (what a closed, lossless domain "
                  "should keep to rounding)")

    plt = pyplot()
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(6, 5.5), sharex=True)
    for name, c in (("electric", "C0"), ("magnetic", "C1"), ("total", "k")):
        a1.plot(t * 1e9, rows[:, col[name]], color=c, lw=1, label=name)
    a1.set_ylabel("energy (J)")
    a1.legend(fontsize=7)
    if measured:
        a2.plot(t[s:] * 1e9, (w[s:] - w[s]) / w[s], marker=".", lw=1)
        a2.set_ylabel("(W - W_end) / W_end")
        a2.set_title("energy leaving the domain after the source" if falls else "drift after the source", fontsize=8)
        a1.axvline(t[s] * 1e9, color="gray", ls="--", lw=0.8)
    else:
        a2.set_title("after the source: too few rows", fontsize=8)
        a2.set_yticks([])
        a2.text(0.5, 0.5, f"too few energy rows after the source ends (at least {MIN_ROWS_AFTER}):\n"
                "no drift or loss measured; a smaller diagnostics.every gives more",
                transform=a2.transAxes, ha="center", va="center", fontsize=8, color="0.3")
    a2.set_xlabel("time (ns)")
    save(fig, plot_path(args.output, args.probes, "energy"))


def _percent(text):
    import argparse

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number")
    if not 0 < v <= 100:
        raise argparse.ArgumentTypeError(f"{v:g} is not a percentile in (0, 100]")
    return v


def register(sub):
    p = sub.add_parser("fdtd-slice", help="fdtd: one plane of a field component (min, max, rms, image)")
    p.add_argument("fields", metavar="FIELD_H5")
    p.add_argument("--component", default="Ez", 
                   help="Ex Ey Ez Hx Hy Hz (default Ez; of a collocated file: a component of its E or H)")
    p.add_argument("--axis", choices=["x", "y", "z"],
                   help="normal of the plane (default: the thin axis of a plane output, else z)")
    p.add_argument("--index", type=int, 
                   help="global cell index along the axis (the number of cells: the high wall; default: the middle)")
    p.add_argument("--clip", type=_percent, default=99.5, metavar="PERCENTILE",
                   help="colour limit: this percentile of |value| (default 99.5: a source cell does not "
                        "swamp the wave; 100: the largest value)")
    p.add_argument("--scale", choices=["linear", "symlog"], default="linear",
                   help="colour scale (default linear, clipped; symlog: up to the largest value, "
                        "logarithmic above 1/100 of the clip level)")
    p.add_argument("-o", "--output", help="PNG (default: beside FIELD_H5, <run>_<file>_<component>_<axis><index>.png)")
    p.set_defaults(run=slice_)
    p = sub.add_parser("fdtd-probes", help="fdtd: probe signals, spectra and resonance peaks (probes.h5)")
    p.add_argument("probes", metavar="PROBES_H5")
    p.add_argument("--column", action="append", help="probe column, e.g. p.Ez (repeatable; default all)")
    p.add_argument("--threshold", type=float, default=0.02,
                   help="peaks below this fraction of the strongest are ignored (default 0.02)")
    p.add_argument("--max-peaks", type=int, default=8, help="report at most this many peaks (default 8)")
    p.add_argument("--fmax", type=float, default=0.0,
                   help="highest frequency shown and searched, Hz (default: where the spectra fall below "
                        "1e-3 of their peaks, plus a quarter)")
    p.add_argument("--pad", type=int, default=8, help="zero padding factor of the FFT (default 8)")
    p.add_argument("-o", "--output", help="PNG (default: beside PROBES_H5, <run>_probes_spectra.png)")
    p.set_defaults(run=probes)
    p = sub.add_parser("fdtd-energy",
                       help="fdtd: energy history; after the source, its drift or its loss (probes.h5)")
    p.add_argument("probes", metavar="PROBES_H5")
    p.add_argument("--source-end", type=float, help="time (s) after which no source acts (default: detected)")
    p.add_argument("-o", "--output", help="PNG (default: beside PROBES_H5, <run>_probes_energy.png)")
    p.set_defaults(run=energy)
