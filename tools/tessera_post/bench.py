"""Benchmark JSON from `tessera bench ... --json`: tables, scaling and roofline-style charts."""
import json
import os
import re

from .cli import UsageError
from .h5files import plot_path, pyplot, save, save_as_laid_out


def load(path):
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    try:
        with open(path) as f:
            report = json.load(f)
    except json.JSONDecodeError as e:
        raise UsageError(f"{path}: not a tessera benchmark JSON ({e})")
    for key in ("title", "rows"):
        if key not in report:
            raise UsageError(f"{path}: not a tessera benchmark JSON (no '{key}')")
    return report


def table(args):
    """Markdown table of one report, as docs/performance.md records them."""
    r = load(args.json)
    print(f"{r['title']} -- {r.get('device', '?')}, {r.get('date', '?')}, commit {r.get('commit', '?')}")
    if r.get("limit"):
        print(f"limit: {r['limit']}")
    print()
    print("| case | size | time [ms] | rate | unit | of limit |")
    print("|---|---:|---:|---:|---|---:|")
    for row in r["rows"]:
        frac = f"{100 * row['fraction']:.1f}%" if row.get("fraction") else "-"
        print(f"| {row['name']} | {row['size']} | {1e3 * row['seconds']:.4g} | {row['rate']:.4g} | {row['unit']} | {frac} |")


# tessera names a row measured on P ranks "<case> P=<P>" ("weak host P=2", "ring/nccl P=4",
# "dist lookback P=2, totals on nccl"): the same case on another rank count differs only there.
_RANKS = re.compile(r"\s*\bP=(\d+)\b")


def case_of(name):
    """The case a row measures, whatever the rank count: its name without " P=<ranks>"."""
    return _RANKS.sub("", name).strip(" ,")


def efficiency(base, p0, row, p):
    """Parallel efficiency of ROW on P ranks against BASE on P0 ranks, or None.

    From the times where both have one: a size given per rank ("64^3/rank") is weak scaling,
    the work per rank fixed, so efficiency = t0 / t; any other size is the whole problem
    (strong scaling): P0 t0 / (P t). Else from the rates: per rank when the unit says so, else
    aggregate over the ranks."""
    t0, t = base.get("seconds") or 0, row.get("seconds") or 0
    if t0 > 0 and t > 0:
        return t0 / t if "/rank" in str(row.get("size", "")) else (t0 * p0) / (t * p)
    r0, r = base.get("rate") or 0, row.get("rate") or 0
    if r0 > 0 and r > 0:
        return r / r0 if "per rank" in row.get("unit", "") else r / (r0 * p / p0)
    return None


def pair_rows(reports):
    """{(case, size): [(ranks, efficiency), ...]} over REPORTS (sorted by rank count), each case
    against its row in the report of the fewest ranks. Where rows name their rank count (P=),
    only those are paired: the one-rank baselines every report repeats are not scaling rows."""
    named = any(_RANKS.search(row["name"]) for r in reports for row in r["rows"])

    def rows(report):
        p = report.get("ranks", 1)
        for row in report["rows"]:
            m = _RANKS.search(row["name"])
            if named and (not m or int(m.group(1)) != p):
                continue
            yield (case_of(row["name"]), row["size"]), row

    base = dict(rows(reports[0]))
    p0 = reports[0].get("ranks", 1)
    series = {}
    for r in reports:
        p = r.get("ranks", 1)
        for key, row in rows(r):
            if key in base:
                eff = efficiency(base[key], p0, row, p)
                if eff is not None:
                    series.setdefault(key, []).append((p, eff))
    return series


def scaling(args):
    """Parallel efficiency versus ranks per case, from one report per rank count."""
    reports = sorted((load(p) for p in args.json), key=lambda r: r.get("ranks", 1))
    series = pair_rows(reports)
    if not series:
        raise UsageError("no case appears in the report of the fewest ranks and another: nothing to pair "
                         f"(ranks: {', '.join(str(r.get('ranks', 1)) for r in reports)})")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    lines = []
    for (name, size), pts in sorted(series.items()):
        ps, effs = zip(*pts)
        ax.plot(ps, effs, marker="o", label=f"{name} {size}")
        lines.append(f"{name} {size}: " + ", ".join(f"P={p} {100 * e:.1f}%" for p, e in pts))
    ax.set_xlabel("ranks")
    ax.set_ylabel("parallel efficiency")
    # Ranks are whole numbers: integer ticks, and a single rank count shown with one rank of
    # room either side (matplotlib's default spans 0.96..1.04 around a lone point).
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ranks = sorted({p for pts in series.values() for p, _ in pts})
    if len(ranks) == 1:
        ax.set_xlim(ranks[0] - 1, ranks[0] + 1)
    else:
        pad = 0.05 * (ranks[-1] - ranks[0])
        ax.set_xlim(ranks[0] - pad, ranks[-1] + pad)
    ax.set_ylim(0, 1.1)
    ax.axhline(0.9, color="gray", ls="--", lw=0.8)
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    print("\n".join(lines))
    save(fig, plot_path(args.output, args.json[0], "scaling", run_named=False))


def roofline_figure(plt, report, rows):
    """The bars of ROWS, the figure as wide as their labels need (long case names are never cut)."""
    labels = [f"{row['name']} {row['size']}" for row in rows]
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(rows) + 1.5))
    ax.barh(labels, [row["fraction"] for row in rows])
    ax.invert_yaxis()  # the report's order, top to bottom
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xlabel(f"fraction of limit ({report.get('limit', '')})")
    ax.set_title(report["title"], fontsize=8)
    # Measure the labels, the x axis (ticks and label) and the title, then give each its room
    # around a plot area of a fixed size: nothing relies on the PNG's tight crop to be seen.
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    label_in = max(t.get_window_extent(renderer).width for t in ax.get_yticklabels()) / fig.dpi
    title_in = ax.title.get_window_extent(renderer).width / fig.dpi
    xaxis_in = ax.xaxis.get_tightbbox(renderer).height / fig.dpi
    title_h = ax.title.get_window_extent(renderer).height / fig.dpi
    plot_in = max(4.5, title_in - label_in + 0.5)
    plot_h = 0.3 * len(rows) + 0.6
    bottom, top = xaxis_in + 0.15, title_h + 0.25
    height = bottom + plot_h + top
    width = label_in + plot_in + 0.6
    fig.set_size_inches(width, height)
    fig.subplots_adjust(left=(label_in + 0.3) / width, right=1 - 0.3 / width,
                        bottom=bottom / height, top=1 - top / height)
    return fig


def roofline(args):
    """Achieved fraction of the stated limit for every row of a report (a roofline in one bar each)."""
    r = load(args.json)
    rows = [row for row in r["rows"] if row.get("fraction")]
    if not rows:
        raise UsageError(f"{args.json}: no row states a fraction of a limit")
    fig = roofline_figure(pyplot(), r, rows)
    best = max(rows, key=lambda row: row["fraction"])
    print(f"best: {best['name']} {best['size']} at {100 * best['fraction']:.1f}% of the limit")
    save_as_laid_out(fig, plot_path(args.output, args.json, "roofline", run_named=False))


def register(sub):
    p = sub.add_parser("bench-table", help="benchmark JSON as a Markdown table")
    p.add_argument("json")
    p.set_defaults(run=table)
    p = sub.add_parser("bench-scaling", help="parallel efficiency versus ranks (one JSON per rank count)")
    p.add_argument("json", nargs="+")
    p.add_argument("-o", "--output", help="PNG (default: beside the first JSON, <json>_scaling.png)")
    p.set_defaults(run=scaling)
    p = sub.add_parser("roofline", help="achieved fraction of the stated limit per kernel")
    p.add_argument("json")
    p.add_argument("-o", "--output", help="PNG (default: beside the JSON, <json>_roofline.png)")
    p.set_defaults(run=roofline)
