"""SpMV outputs: the CG residual history, and y = A x (or a CG solution's residual) recomputed with
numpy, from matrix.h5 or from the generated matrix regenerated from the deck stored in the output."""
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


def _deck_matrix(f):
    """The [spmv.matrix] table of the resolved deck stored in the output ({} if unreadable)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        return {}
    try:
        return tomllib.loads(text(f.attrs["deck"])).get("spmv", {}).get("matrix", {})
    except (KeyError, tomllib.TOMLDecodeError):
        return {}


GENERATED = ("poisson7", "poisson27", "banded", "powerlaw")


def _product(args, x, rows, cols, spec, nnz_run, name):
    """(A x, |A| |x|, nonzeros, where the matrix came from) in float64."""
    import numpy as np

    path = args.matrix or os.path.join(os.path.dirname(args.result), "matrix.h5")
    if not args.matrix and not os.path.exists(path):
        if spec.get("source") not in GENERATED:
            raise UsageError(f"{path}: no such file, and the run's matrix (spmv.matrix.source = "
                             f"\"{spec.get('source', '?')}\") is not one tessera generates: run with "
                             "spmv.write_matrix = true, or give the matrix with --matrix")
        from .regen import generated_product

        if len(x) != cols:
            raise UsageError(f"{args.result}: /x has {len(x)} entries, the matrix {cols} columns")
        ref, scale, nnz = generated_product(spec, x)
        if len(ref) != rows or nnz != nnz_run:
            raise UsageError(f"the matrix regenerated from the deck in {name} is {len(ref)} rows, {nnz} nonzeros, "
                             f"but the run's was {rows} rows, {nnz_run} nonzeros: not reproduced (give --matrix)")
        return ref, scale, nnz, (f"regenerated from the deck stored in {name} (spmv.matrix.source = "
                                 f"\"{spec['source']}\", solvers/spmv/generate.cpp reproduced in numpy; "
                                 f"{nnz} nonzeros as the run's attribute)")
    with open_h5(path, MATRIX) as g:
        row_ptr = np.asarray(dataset(g, "row_ptr", MATRIX)[...], dtype=np.int64)
        col = np.asarray(dataset(g, "col", MATRIX)[...], dtype=np.int64)
        val = np.asarray(dataset(g, "val", MATRIX)[...])
        shape = [int(v) for v in g.attrs["shape"]] if "shape" in g.attrs else [len(row_ptr) - 1] * 2
        m_description = text(g.attrs.get("matrix", "?"))
    m_rows, m_cols = shape
    if row_ptr.ndim != 1 or len(row_ptr) != m_rows + 1 or len(col) != len(val) or row_ptr[-1] != len(col):
        raise UsageError(f"{path}: /row_ptr ({len(row_ptr)} entries), /col ({len(col)}), /val ({len(val)}) "
                         f"do not form a CSR matrix of {m_rows} rows")
    if len(x) != m_cols or rows != m_rows:
        raise UsageError(f"{path} is {m_rows} x {m_cols}, but {args.result} holds /x of {len(x)} and "
                         f"{rows} rows: not the run's matrix")
    if len(col) and (col.min() < 0 or col.max() >= m_cols):
        raise UsageError(f"{path}: /col holds indices outside [0, {m_cols})")
    ref, scale = _csr_product(row_ptr, col, val, x)
    return ref, scale, len(col), f"{path} ({m_description})"


def check(args):
    """multiply: recomputes y = A x from the stored /x and compares with /y; cg: recomputes the
    true relative residual |b - A x| / |b| of the stored /x and /b and compares it with the run's
    true_relative_residual. A is matrix.h5 (--matrix, or beside the output), else regenerated
    from the deck stored in the output."""
    import numpy as np

    name = os.path.basename(args.result)
    with open_h5(args.result, RESULT) as f:
        if text(f.attrs.get("solver", "")) != "spmv":
            raise UsageError(f"{args.result}: no attribute solver = \"spmv\": not {RESULT}")
        mode = text(f.attrs.get("mode", "?"))
        if mode not in ("multiply", "cg"):
            raise UsageError(f"{args.result}: a spmv.mode = \"{mode}\" run: spmv-check needs a multiply or cg run")
        precision = text(f.attrs.get("precision", "?"))
        if precision not in TOLERANCE:
            raise UsageError(f"{args.result}: unknown precision attribute '{precision}'")
        x = np.asarray(dataset(f, "x", RESULT)[...])
        if mode == "multiply":
            y = np.asarray(dataset(f, "y", RESULT)[...])
            rows = len(y)
        else:
            b = np.asarray(dataset(f, "b", RESULT)[...])
            rows = len(b)
            for a in ("true_relative_residual", "iterations"):
                if a not in f.attrs:
                    raise UsageError(f"{args.result}: no attribute '{a}': not a tessera spmv cg output")
            stored = float(f.attrs["true_relative_residual"])
            iterations, converged = int(f.attrs["iterations"]), int(f.attrs.get("converged", 0))
        rows = int(f.attrs.get("rows", rows))
        cols = int(f.attrs.get("columns", len(x)))
        nnz_run = int(f.attrs.get("nonzeros", -1))
        description = text(f.attrs.get("matrix", "?"))
        ranks, variant = f.attrs.get("ranks", "?"), text(f.attrs.get("variant", "?"))
        spec = _deck_matrix(f)
    ref, scale, nnz, where = _product(args, x, rows, cols, spec, nnz_run, name)
    print(f"{name}: {mode}, {rows} x {cols}, {nnz} nonzeros, {precision}, variant {variant}, {ranks} ranks")
    print(f"matrix: {description}: {where}" if where.startswith("regenerated") else f"matrix: {where}")
    if not where.startswith("regenerated") and description not in where:
        print(f"note: the output's matrix attribute is '{description}'")
    if mode == "cg":
        return _check_cg(x, b, ref, scale, stored, iterations, converged, precision)
    if len(y) != len(ref):
        raise UsageError(f"{args.result}: /y has {len(y)} entries, the matrix {len(ref)} rows")
    diff = np.abs(y.astype(np.float64) - ref)
    rel = np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), np.where(diff > 0, np.inf, 0.0))
    worst = int(np.argmax(rel)) if rows else 0
    tol = TOLERANCE[precision]
    print("reference: numpy product in float64 of the stored /x")
    print(f"max relative difference = {float(rel[worst]) if rows else 0.0:.3e} "
          f"(|y - A x| / (|A| |x|) per row; tolerance {tol:g} for {precision})")
    bad = np.nonzero(rel > tol)[0]
    if len(bad):
        i = int(bad[0])
        print(f"MISMATCH: {len(bad)} row(s) differ, the first row {i} (stored {y[i]!r}, recomputed {ref[i]!r})")
        return 1
    print("OK")
    return 0


def _check_cg(x, b, ax, scale, stored, iterations, converged, precision):
    """The true relative residual of the stored solution against the run's."""
    import numpy as np

    bb = b.astype(np.float64)
    norm_b = float(np.linalg.norm(bb))
    if norm_b == 0:
        raise UsageError("/b is zero: no relative residual")
    got = float(np.linalg.norm(bb - ax)) / norm_b
    eps = float(np.finfo(np.dtype(precision)).eps)
    # The run computed b - A x in its precision: rounding of ~32 eps |A| |x| per row, plus a
    # relative 1e-6 on the residual itself.
    tol = 1e-6 * stored + 32 * eps * float(np.linalg.norm(scale + np.abs(bb))) / norm_b
    print("reference: numpy |b - A x| / |b| in float64 of the stored /x and /b")
    print(f"true relative residual = {got:.6e} recomputed, {stored:.6e} by the run "
          f"(difference {abs(got - stored):.3e}, tolerance {tol:.3e}); {iterations} iterations, "
          f"{'converged' if converged else 'not converged'}")
    if not abs(got - stored) <= tol:
        print(f"MISMATCH: the stored /x has a true relative residual {got:.6e}, the run reported {stored:.6e}")
        return 1
    print("OK")
    return 0


def register(sub):
    p = sub.add_parser("spmv-residual", help="spmv: the CG residual history (iterations, convergence rate, plot)")
    p.add_argument("history", metavar="HISTORY_H5", help="spmv_history.h5 of a cg run")
    p.add_argument("-o", "--output", metavar="PNG", help="the plot of the relative residual per iteration (log scale; default: beside HISTORY_H5, "
                        "<run>_spmv_history_residual.png)")
    p.set_defaults(run=residual)
    p = sub.add_parser("spmv-check", help="spmv: recompute y = A x (multiply) or the true residual |b - A x| / |b| "
                                          "(cg) with numpy and compare (exit 1 on mismatch)")
    p.add_argument("result", metavar="SPMV_H5", help="spmv.h5 of a multiply or cg run")
    p.add_argument("--matrix", metavar="MATRIX_H5",
                   help="the matrix in HDF5 CSR (default: matrix.h5 next to SPMV_H5, from spmv.write_matrix = true; "
                        "else a generated matrix is regenerated from the deck stored in SPMV_H5)")
    p.set_defaults(run=check)
