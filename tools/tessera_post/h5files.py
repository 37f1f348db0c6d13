"""Opening tessera's HDF5 outputs with messages the user can act on (cli.UsageError, exit 2)."""
import os

from .cli import UsageError


def open_h5(path, what):
    """Opens PATH read-only; `what` names the kind of file expected, for the messages."""
    import h5py

    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory, expected {what}")
    try:
        return h5py.File(path, "r")
    except OSError as e:
        raise UsageError(f"{path}: not an HDF5 file, expected {what} ({e})")


def dataset(f, name, what, hint=""):
    """The dataset NAME of file F, or a UsageError saying it is not the expected kind of file."""
    import h5py

    obj = f.get(name)
    if not isinstance(obj, h5py.Dataset):
        raise UsageError(f"{f.filename}: no dataset /{name.lstrip('/')}: not {what}{hint}")
    return obj


def text(value):
    """An attribute as str (tessera writes strings as bytes or str)."""
    if isinstance(value, bytes):
        return value.decode()
    if hasattr(value, "dtype") and value.dtype.kind == "S":
        return value.tobytes().decode()
    return str(value)


def columns(ds, required, what):
    """Column index by name of a tessera time series (names in its `columns` attribute)."""
    if "columns" not in ds.attrs or ds.ndim != 2:
        raise UsageError(f"{ds.file.filename}: /{ds.name.lstrip('/')} has no 'columns' attribute: not {what}")
    names = [text(c) for c in ds.attrs["columns"]]
    missing = [c for c in required if c not in names]
    if missing:
        raise UsageError(f"{ds.file.filename}: /{ds.name.lstrip('/')} has no column {', '.join(missing)}: "
                         f"not {what} (columns: {' '.join(names)})")
    return {name: i for i, name in enumerate(names)}


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_path(output, input_path, what, run_named=True):
    """Where a plot goes: OUTPUT (-o) when given; else beside its input, named after the run (the
    input's directory, a run's output_dir), the input and WHAT the plot shows, so plots of
    different runs and inputs never overwrite each other: output/cavity/cavity_probes_spectra.png.
    Benchmark JSON files name their run themselves (run_named=False): comm_np2_roofline.png."""
    if output:
        return output
    folder = os.path.dirname(input_path)
    stem = os.path.splitext(os.path.basename(input_path))[0]
    run = os.path.basename(os.path.dirname(os.path.abspath(input_path))) if run_named else ""
    return os.path.join(folder, "_".join(part for part in (run, stem, what) if part) + ".png")


def save(fig, path):
    """Writes FIG to PATH, cropped to what was drawn (bbox_inches="tight"), so that long tick
    labels, legends and titles are never cut off."""
    fig.tight_layout()
    save_as_laid_out(fig, path)


def save_as_laid_out(fig, path):
    """Writes FIG to PATH keeping its own layout (no tight_layout), cropped to what was drawn."""
    try:
        fig.savefig(path, dpi=120, bbox_inches="tight", pad_inches=0.1)
    except OSError as e:
        raise UsageError(f"{path}: cannot write the plot ({e.strerror or e}; -o writes it elsewhere)")
    print(f"wrote {path}")
