"""FDTD flux spectra (flux.h5): transmission, reflection and loss against frequency.

The normalisation workflow (docs/fdtd.md, "Flux spectra"): an empty run gives the incident flux
through a plane; a second run with the structure gives the transmitted flux and, on a plane
whose incident DFT fields it subtracted (`subtract`), the reflected flux. Then
    T = P_trans / P_incident,   R = -P_refl / P_incident,   loss = 1 - T - R.
"""
import os

from .cli import UsageError
from .h5files import columns, dataset, open_h5, plot_path, pyplot, save, text

FLUX = "a tessera fdtd flux file (flux.h5)"


def _read(path):
    """{plane: (frequencies, flux, attrs)} of a flux.h5."""
    import numpy as np

    with open_h5(path, FLUX) as f:
        if "planes" not in f.attrs:
            raise UsageError(f"{path}: no 'planes' attribute: not {FLUX}")
        out = {}
        for name in (text(p) for p in f.attrs["planes"]):
            ds = dataset(f, name, FLUX)
            col = columns(ds, ["frequency", "flux"], FLUX)
            rows = np.asarray(ds[...], dtype=np.float64)
            attrs = {k: ds.attrs[k] for k in ("step", "axis", "position", "weight", "subtracted") if k in ds.attrs}
            out[name] = (rows[:, col["frequency"]], rows[:, col["flux"]], attrs)
        return out


def _plane(planes, name, path, option):
    if name not in planes:
        raise UsageError(f"{option} {name}: {path} has no flux plane of that name (planes: {' '.join(planes)})")
    return planes[name]


def flux(args):
    import numpy as np

    run = _read(args.flux)
    if args.incident is None:
        # One run: the spectra as they are.
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(6, 3.8))
        for name, (f, p, _) in run.items():
            ax.plot(f * 1e-9, p, marker=".", lw=1, label=name)
            print(f"{name}: {len(f)} frequencies {f[0]:.6g} .. {f[-1]:.6g} Hz, flux {p.min():.6g} .. {p.max():.6g} J/Hz")
        ax.set_xlabel("frequency (GHz)")
        ax.set_ylabel("flux P(f) (J/Hz)")
        ax.legend(fontsize=7)
        save(fig, plot_path(args.output, args.flux, "flux"))
        return 0

    if not args.transmission and not args.reflection:
        raise UsageError("--incident needs --transmission PLANE and/or --reflection PLANE")
    empty = _read(args.incident)
    for option, name in (("--transmission", args.transmission), ("--reflection", args.reflection)):
        if name:
            _plane(run, name, args.flux, option)
    inc_name = args.incident_plane or args.reflection or args.transmission
    fi, pi, _ = _plane(empty, inc_name, args.incident, "--incident-plane")
    curves = {}
    for label, name in (("T", args.transmission), ("R", args.reflection)):
        if not name:
            continue
        f, p, attrs = _plane(run, name, args.flux, "--transmission" if label == "T" else "--reflection")
        if len(f) != len(fi) or not np.allclose(f, fi, rtol=1e-12, atol=0):
            raise UsageError(f"plane {name} of {args.flux} and plane {inc_name} of {args.incident} have other "
                             "frequencies: the two runs must use the same monitor frequencies")
        if label == "R" and not text(attrs.get("subtracted", "")):
            print(f"note: plane {name} subtracted no incident fields (no 'subtract' in its deck): R then reads "
                  "1 - (net flux), not the reflected wave alone")
        curves[label] = (-p if label == "R" else p) / pi
    f = fi
    print(f"incident: plane {inc_name} of {args.incident}, {len(f)} frequencies {f[0]:.6g} .. {f[-1]:.6g} Hz")
    for label, v in curves.items():
        print(f"{label}: {v.min():.4f} .. {v.max():.4f}")
    if "T" in curves and "R" in curves:
        loss = 1 - curves["T"] - curves["R"]
        curves["loss"] = loss
        print(f"max |1 - T - R| = {np.abs(loss).max():.3e} over {len(f)} frequencies")
    if args.table:
        print("frequency_Hz " + " ".join(curves))
        for i in range(len(f)):
            print(f"{f[i]:.6e} " + " ".join(f"{v[i]:.6f}" for v in curves.values()))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.8))
    names = {"T": "transmission", "R": "reflection", "loss": "loss 1 - T - R"}
    for label, v in curves.items():
        ax.plot(f * 1e-9, v, marker="." if label != "loss" else None, lw=1, label=names[label])
    ax.set_xlabel("frequency (GHz)")
    ax.set_ylabel("fraction of the incident flux")
    ax.set_title(os.path.basename(os.path.dirname(os.path.abspath(args.flux))) or args.flux, fontsize=8)
    ax.legend(fontsize=7)
    save(fig, plot_path(args.output, args.flux, "spectra"))
    return 0


def register(sub):
    p = sub.add_parser("fdtd-flux", help="fdtd: flux spectra, transmission / reflection / loss (flux.h5)")
    p.add_argument("flux", metavar="FLUX_H5", help="flux.h5 of the run (with the structure)")
    p.add_argument("--incident", metavar="EMPTY_FLUX_H5", help="flux.h5 of the empty run: the incident flux")
    p.add_argument("--incident-plane", help="plane of EMPTY_FLUX_H5 giving the incident flux (default: the "
                                            "reflection plane, else the transmission plane)")
    p.add_argument("--transmission", metavar="PLANE", help="plane measuring the transmitted flux")
    p.add_argument("--reflection", metavar="PLANE",
                   help="plane measuring the reflected flux (its deck subtracts the empty run's fields)")
    p.add_argument("--table", action="store_true", help="print one line per frequency")
    p.add_argument("-o", "--output", help="PNG (default: beside FLUX_H5, <run>_flux_spectra.png)")
    p.set_defaults(run=flux)
