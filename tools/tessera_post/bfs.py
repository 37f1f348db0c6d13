"""BFS outputs: the level histogram of a search, the TEPS distribution over the roots."""
import math
import os

from .cli import UsageError
from .h5files import columns, dataset, open_h5, pyplot, plot_path, save, text

BFS = "a tessera bfs output (bfs.h5)"
STATS = ["min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev", "harmonic_mean",
         "harmonic_stddev"]


def _open(path):
    f = open_h5(path, BFS)
    if text(f.attrs.get("solver", "")) != "bfs":
        f.close()
        raise UsageError(f"{path}: no attribute solver = \"bfs\": not {BFS}")
    return f


def _searches(f):
    ds = dataset(f, "searches", BFS)
    col = columns(ds, ["step", "root", "seconds", "input_edges", "teps", "reached", "depth", "validated"], BFS)
    return ds[...], col


def levels(args):
    """Vertices per level of one search tree; checked against the search's row."""
    import h5py
    import numpy as np

    with _open(args.bfs) as f:
        trees = f.get("trees")
        names = sorted(trees.keys()) if isinstance(trees, h5py.Group) else []
        if not names:
            raise UsageError(f"{args.bfs}: no search trees stored (the run had bfs.trees = 0)")
        roots = {k: int(trees[k].attrs.get("root", -1)) for k in names}
        if args.root is not None:
            match = [k for k in names if roots[k] == args.root]
            if not match:
                raise UsageError(f"--root {args.root}: no stored tree has this root (stored: "
                                 + ", ".join(f"{roots[k]} (tree {k})" for k in names) + ")")
            name = match[0]
        else:
            name = f"{args.tree:05d}"
            if name not in names:
                raise UsageError(f"--tree {args.tree}: not stored (stored trees: {', '.join(names)})")
        level = np.asarray(dataset(f, f"trees/{name}/level", BFS)[...])
        root = roots[name]
        rows, col = _searches(f)
        vertices = int(f["graph"].attrs["vertices"]) if "graph" in f and "vertices" in f["graph"].attrs else len(level)
    reached = level >= 0
    counts = np.bincount(level[reached]) if reached.any() else np.zeros(0, dtype=np.int64)
    depth = len(counts) - 1
    print(f"{os.path.basename(args.bfs)}: tree {name}, root {root}, {len(level)} vertices: "
          f"{int(reached.sum())} reached in {len(counts)} levels (depth {depth}), {int((~reached).sum())} unreached")
    print("level  vertices")
    for d, c in enumerate(counts):
        print(f"{d:5d}  {c}")
    print("counts per level: " + " ".join(str(c) for c in counts))
    # The search's row in /searches: the k-th search (tree k), which must have the same root.
    k = int(name)
    status = 0
    if len(level) != vertices:
        print(f"MISMATCH: the tree has {len(level)} entries, the graph {vertices} vertices")
        status = 1
    if k < len(rows) and int(rows[k, col["root"]]) == root:
        r_reached, r_depth = int(rows[k, col["reached"]]), int(rows[k, col["depth"]])
        same = r_reached == int(reached.sum()) and r_depth == depth
        if counts.size and counts[0] != 1:
            same = False
        print(f"/searches row {k}: reached {r_reached}, depth {r_depth}: "
              + ("consistent" if same else "MISMATCH"))
        status = status or (0 if same else 1)
    else:
        print(f"/searches has no row for search {k} with root {root}: not cross-checked")

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(np.arange(len(counts)), counts)
    if counts.size and counts.max() / max(counts.min(), 1) > 100:
        ax.set_yscale("log")
    ax.set_xlabel("level (distance from the root)")
    ax.set_ylabel("vertices")
    ax.set_title(f"{os.path.basename(args.bfs)}: root {root}, {int(reached.sum())} of {len(level)} reached",
                 fontsize=8)
    save(fig, plot_path(args.output, args.bfs, f"levels_root{root}"))
    return status


def _statistics(x):
    """Graph500's statistics, as tessera computes them (solvers/bfs/statistics.cpp)."""
    x = sorted(x)
    n = len(x)
    s = {"min": x[0], "max": x[-1],
         "firstquartile": 0.5 * (x[(n - 1) // 4] + x[n // 4]),
         "median": 0.5 * (x[(n - 1) // 2] + x[n // 2]),
         "thirdquartile": 0.5 * (x[n - 1 - (n - 1) // 4] + x[n - 1 - n // 4])}
    total = sum(x)
    s["mean"] = total / n
    # Harmonic statistics over the searches that traversed edges (rate > 0), as in the solver.
    pos = [v for v in x if v > 0]
    inverse = sum(1.0 / v for v in pos)
    s["harmonic_mean"] = len(pos) / inverse if pos else 0.0
    s["stddev"] = s["harmonic_stddev"] = 0.0
    if n > 1:
        s["stddev"] = math.sqrt(sum((v - s["mean"]) ** 2 for v in x) / (n - 1))
    if len(pos) > 1:
        im = inverse / len(pos)
        inv_squares = sum((1.0 / v - im) ** 2 for v in pos)
        s["harmonic_stddev"] = math.sqrt(inv_squares) / (len(pos) - 1) * s["harmonic_mean"] ** 2
    return s


def teps(args):
    """TEPS over the roots: Graph500's statistics recomputed from /searches and checked against /statistics."""
    import h5py
    import numpy as np

    with _open(args.bfs) as f:
        rows, col = _searches(f)
        g = f.get("graph")
        about = ""
        if isinstance(g, h5py.Group):
            about = (f"{text(g.attrs.get('description', '?'))}; {g.attrs.get('ranks', '?')} ranks, "
                     f"{text(g.attrs.get('backend', '?'))}, {text(g.attrs.get('algorithm', '?'))}")
        st = f.get("statistics")
        stored = dict(st.attrs) if isinstance(st, h5py.Group) else {}
    if len(rows) == 0:
        raise UsageError(f"{args.bfs}: /searches has no rows yet")
    t = rows[:, col["teps"]]
    validated = int(np.sum(rows[:, col["validated"]] != 0))
    print(f"{os.path.basename(args.bfs)}: {len(rows)} searches ({validated} validated); {about}")
    nbfs = int(stored.get("nbfs", len(rows)))
    if stored and nbfs != len(rows):
        print(f"/statistics covers the first {nbfs} of the {len(rows)} searches (refreshed at [output] every): "
              f"compared over those")
    s = _statistics(list(t[:nbfs] if stored and 0 < nbfs <= len(rows) else t))
    status = 0
    worst = 0.0
    print(f"TEPS over {nbfs if stored else len(rows)} roots (Graph500 statistics):")
    for name in STATS:
        key = f"{name}_TEPS"
        v = s[name]
        line = f"  {key + ':':22s} {v:.6g}"
        if key in stored:
            ref = float(stored[key])
            rel = abs(v - ref) / max(abs(ref), 1e-300) if ref != v else 0.0
            worst = max(worst, rel)
            if f"{v:.6g}" == f"{ref:.6g}" and rel <= 1e-9:
                line += " = stored"
            else:
                line += f" != stored {ref:.6g} (relative difference {rel:.2g})"
                status = 1
        print(line)
    if not stored:
        print("the file has no /statistics yet: nothing to check against")
    elif status:
        print("statistics: MISMATCH with /statistics")
    else:
        print(f"statistics: all {len(STATS)} agree with /statistics (largest relative difference {worst:.2g})")

    plt = pyplot()
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(6, 6))
    a1.hist(t, bins=max(5, min(50, len(t) // 2)), color="C0")
    for name, style in (("median", "-"), ("firstquartile", ":"), ("thirdquartile", ":"), ("harmonic_mean", "--")):
        a1.axvline(s[name], color="k", ls=style, lw=0.9, label=f"{name} {s[name]:.3g}")
    a1.set_xlabel("TEPS")
    a1.set_ylabel("searches")
    a1.legend(fontsize=7)
    a1.set_title(about, fontsize=7)
    a2.plot(rows[:, col["step"]], t, marker=".", lw=0.6)
    a2.axhline(s["harmonic_mean"], color="k", ls="--", lw=0.9)
    a2.set_xlabel("search (step)")
    a2.set_ylabel("TEPS")
    save(fig, plot_path(args.output, args.bfs, "teps"))
    return status


def register(sub):
    p = sub.add_parser("bfs-levels", help="bfs: vertices per level of one stored search tree")
    p.add_argument("bfs", metavar="BFS_H5")
    p.add_argument("--tree", type=int, default=0, help="stored tree number (default 0: the first search)")
    p.add_argument("--root", type=int, help="the stored tree of this root instead")
    p.add_argument("-o", "--output", help="PNG (default: beside BFS_H5, <run>_bfs_levels_root<ROOT>.png)")
    p.set_defaults(run=levels)
    p = sub.add_parser("bfs-teps", help="bfs: TEPS over the roots, Graph500 statistics checked against the file")
    p.add_argument("bfs", metavar="BFS_H5")
    p.add_argument("-o", "--output", help="PNG (default: beside BFS_H5, <run>_bfs_teps.png)")
    p.set_defaults(run=teps)
