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


def save(fig, path):
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as e:
        raise UsageError(f"{path}: cannot write the plot ({e.strerror or e})")
    print(f"wrote {path}")
