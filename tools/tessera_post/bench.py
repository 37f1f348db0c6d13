"""Benchmark JSON from `tessera bench ... --json`: tables, scaling and roofline-style charts."""
import json
import os

from .cli import UsageError


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


def scaling(args):
    """Parallel efficiency versus ranks: rate(P) / (P * rate(1)) per case, from one report per P."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    reports = sorted((load(p) for p in args.json), key=lambda r: r.get("ranks", 1))
    base = {(row["name"], row["size"]): row["rate"] for row in reports[0]["rows"]}
    p0 = reports[0].get("ranks", 1)
    series = {}
    for r in reports:
        p = r.get("ranks", 1)
        for row in r["rows"]:
            key = (row["name"], row["size"])
            if key in base and base[key] > 0:
                # Rates are per rank unless the unit says otherwise: efficiency = per-rank rate ratio.
                per_rank = "per rank" in row["unit"]
                eff = row["rate"] / base[key] if per_rank else row["rate"] / (base[key] * p / p0)
                series.setdefault(key, []).append((p, eff))
    fig, ax = plt.subplots(figsize=(6, 4))
    lines = []
    for (name, size), pts in sorted(series.items()):
        ps, effs = zip(*pts)
        ax.plot(ps, effs, marker="o", label=f"{name} {size}")
        lines.append(f"{name} {size}: " + ", ".join(f"P={p} {100 * e:.1f}%" for p, e in pts))
    ax.set_xlabel("ranks")
    ax.set_ylabel("parallel efficiency")
    ax.set_ylim(0, 1.1)
    ax.axhline(0.9, color="gray", ls="--", lw=0.8)
    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print("\n".join(lines))
    print(f"wrote {args.output}")


def roofline(args):
    """Achieved fraction of the stated limit for every row of a report (a roofline in one bar each)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = load(args.json)
    rows = [row for row in r["rows"] if row.get("fraction")]
    if not rows:
        raise UsageError(f"{args.json}: no row states a fraction of a limit")
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(rows) + 1.5))
    labels = [f"{row['name']} {row['size']}" for row in rows]
    fracs = [row["fraction"] for row in rows]
    ax.barh(labels, fracs)
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xlabel(f"fraction of limit ({r.get('limit', '')})")
    ax.set_title(r["title"], fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    best = max(rows, key=lambda row: row["fraction"])
    print(f"best: {best['name']} {best['size']} at {100 * best['fraction']:.1f}% of the limit")
    print(f"wrote {args.output}")


def register(sub):
    p = sub.add_parser("bench-table", help="benchmark JSON as a Markdown table")
    p.add_argument("json")
    p.set_defaults(run=table)
    p = sub.add_parser("bench-scaling", help="parallel efficiency versus ranks (one JSON per rank count)")
    p.add_argument("json", nargs="+")
    p.add_argument("-o", "--output", default="scaling.png")
    p.set_defaults(run=scaling)
    p = sub.add_parser("roofline", help="achieved fraction of the stated limit per kernel")
    p.add_argument("json")
    p.add_argument("-o", "--output", default="roofline.png")
    p.set_defaults(run=roofline)
