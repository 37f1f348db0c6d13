"""SpMV outputs: the CG residual history, and y = A x recomputed with numpy from matrix.h5."""
import math
import os

from .cli import UsageError
from .h5files import columns, dataset, open_h5, plot_path, pyplot, save, text

HISTORY = "a tessera spmv CG history (spmv_history.h5)"
RESULT = "a tessera spmv output (spmv.h5)"
MATRIX = "a tessera spmv matrix file (matrix.h5, written with spmv.write_matrix = true)"
# Largest accepted |y - A x| / (|A| |x|) per row, by the run's precision.
TOLERANCE = {"float64": 1e-12, "float32": 1e-5}


def residual(args):
    """Iterations, first and final relative residual, mean rate per iteration; a log plot."""
    import numpy as np

    with open_h5(args.history, HISTORY) as f:
        hint = ""
        if "mode" in f.attrs and "cg" not in f:
            hint = f" (this is the run's {os.path.basename(args.history)}; the history is in spmv_history.h5)"
        ds = dataset(f, "cg", HISTORY, hint)
        col = columns(ds, ["step", "relative_residual"], HISTORY)
        data = np.asarray(ds[...], dtype=np.float64)
    if data.shape[0] == 0:
        raise UsageError(f"{args.history}: /cg has no rows")
    step, rel = data[:, col["step"]], data[:, col["relative_residual"]]
    iterations = int(step[-1] - step[0])
    first, final = float(rel[0]), float(rel[-1])
    if iterations > 0 and first > 0 and final > 0:
        rate = (final / first) ** (1.0 / iterations)
        digits = -math.log10(rate) if rate > 0 else float("inf")
        rate_text = f"{rate:.4f} per iteration ({digits:.3f} digits per iteration)"
    else:
        rate_text = "n/a"
    print(f"{os.path.basename(args.history)}: {len(step)} rows, steps {int(step[0])}..{int(step[-1])}")
    print(f"iterations = {iterations}")
    print(f"first relative residual = {first:.3e}")
    print(f"final relative residual = {final:.3e}")
    print(f"mean convergence rate = {rate_text}")
    # Always a plot (the guide's promise): -o, else beside the history, in the run's folder.
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.semilogy(step, np.where(rel > 0, rel, np.nan), marker=".", markersize=3)
    ax.set_xlabel("iteration")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # iterations are whole
    ax.set_ylabel("relative residual ||r|| / ||b||")
    ax.set_title(f"CG: {iterations} iterations, final {final:.3e}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    save(fig, plot_path(args.output, args.history, "residual"))
    return 0


def _csr_product(row_ptr, col, val, x):
    """(A x, |A| |x|) in float64, row by row with np.add.reduceat (empty rows give 0)."""
    import numpy as np

    rows = len(row_ptr) - 1
    prod = val.astype(np.float64) * x.astype(np.float64)[col]
    y = np.zeros(rows)
    scale = np.zeros(rows)
    starts = row_ptr[:-1]
    nonempty = np.nonzero(row_ptr[1:] > starts)[0]
    if len(nonempty):
        # Each segment runs to the next nonempty row's start; empty rows in between hold nothing.
        y[nonempty] = np.add.reduceat(prod, starts[nonempty])
        scale[nonempty] = np.add.reduceat(np.abs(prod), starts[nonempty])
    return y, scale


def check(args):
    """Recomputes y = A x from matrix.h5 and the /x of spmv.h5; compares with /y."""
    import numpy as np

    with open_h5(args.result, RESULT) as f:
        if text(f.attrs.get("solver", "")) != "spmv":
            raise UsageError(f"{args.result}: no attribute solver = \"spmv\": not {RESULT}")
        mode = text(f.attrs.get("mode", "?"))
        if mode != "multiply":
            raise UsageError(f"{args.result}: a spmv.mode = \"{mode}\" run: spmv-check needs a multiply run "
                             "(its /x and /y)")
        precision = text(f.attrs.get("precision", "?"))
        if precision not in TOLERANCE:
            raise UsageError(f"{args.result}: unknown precision attribute '{precision}'")
        x = np.asarray(dataset(f, "x", RESULT)[...])
        y = np.asarray(dataset(f, "y", RESULT)[...])
        description = text(f.attrs.get("matrix", "?"))
        ranks, variant = f.attrs.get("ranks", "?"), text(f.attrs.get("variant", "?"))
    path = args.matrix or os.path.join(os.path.dirname(args.result), "matrix.h5")
    if not args.matrix and not os.path.exists(path):
        raise UsageError(f"{path}: no such file (the run did not set spmv.write_matrix = true?): "
                         "give the matrix with --matrix")
    with open_h5(path, MATRIX) as g:
        row_ptr = np.asarray(dataset(g, "row_ptr", MATRIX)[...], dtype=np.int64)
        col = np.asarray(dataset(g, "col", MATRIX)[...], dtype=np.int64)
        val = np.asarray(dataset(g, "val", MATRIX)[...])
        shape = [int(v) for v in g.attrs["shape"]] if "shape" in g.attrs else [len(row_ptr) - 1] * 2
        m_description = text(g.attrs.get("matrix", "?"))
    rows, cols = shape
    if row_ptr.ndim != 1 or len(row_ptr) != rows + 1 or len(col) != len(val) or row_ptr[-1] != len(col):
        raise UsageError(f"{path}: /row_ptr ({len(row_ptr)} entries), /col ({len(col)}), /val ({len(val)}) "
                         f"do not form a CSR matrix of {rows} rows")
    if len(x) != cols or len(y) != rows:
        raise UsageError(f"{path} is {rows} x {cols}, but {args.result} holds /x of {len(x)} and /y of {len(y)} "
                         "entries: not the run's matrix")
    if len(col) and (col.min() < 0 or col.max() >= cols):
        raise UsageError(f"{path}: /col holds indices outside [0, {cols})")
    ref, scale = _csr_product(row_ptr, col, val, x)
    diff = np.abs(y.astype(np.float64) - ref)
    rel = np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), np.where(diff > 0, np.inf, 0.0))
    worst = int(np.argmax(rel)) if rows else 0
    tol = TOLERANCE[precision]
    print(f"{os.path.basename(args.result)}: {rows} x {cols}, {len(col)} nonzeros, {precision}, "
          f"variant {variant}, {ranks} ranks")
    print(f"matrix: {path} ({m_description})")
    if m_description != description:
        print(f"note: the output's matrix attribute is '{description}'")
    print("reference: numpy CSR product in float64 of the stored /x")
    print(f"max relative difference = {float(rel[worst]) if rows else 0.0:.3e} "
          f"(|y - A x| / (|A| |x|) per row; tolerance {tol:g} for {precision})")
    bad = np.nonzero(rel > tol)[0]
    if len(bad):
        i = int(bad[0])
        print(f"MISMATCH: {len(bad)} row(s) differ, the first row {i} (stored {y[i]!r}, recomputed {ref[i]!r})")
        return 1
    print("OK")
    return 0


def register(sub):
    p = sub.add_parser("spmv-residual", help="spmv: the CG residual history (iterations, convergence rate, plot)")
    p.add_argument("history", metavar="HISTORY_H5", help="spmv_history.h5 of a cg run")
    p.add_argument("-o", "--output", metavar="PNG", help="the plot of the relative residual per iteration (log scale; default: beside HISTORY_H5, "
                        "<run>_spmv_history_residual.png)")
    p.set_defaults(run=residual)
    p = sub.add_parser("spmv-check", help="spmv: recompute y = A x with numpy and compare (exit 1 on mismatch)")
    p.add_argument("result", metavar="SPMV_H5", help="spmv.h5 of a multiply run")
    p.add_argument("--matrix", metavar="MATRIX_H5",
                   help="the matrix in HDF5 CSR (default: matrix.h5 next to SPMV_H5, from spmv.write_matrix = true)")
    p.set_defaults(run=check)
