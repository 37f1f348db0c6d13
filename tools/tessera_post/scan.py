"""Scan outputs: recompute the prefix sum with numpy in 64 bits and compare."""
import math
import os

from .cli import UsageError
from .h5files import dataset, open_h5, text

SCAN = "a tessera scan output (scan.h5)"
TYPES = {"int32", "int64", "float32", "float64"}
CHUNK = 1 << 22


def _deck(f):
    """The [scan.input] table of the resolved deck stored in the file ({} if unreadable)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        return {}
    try:
        return tomllib.loads(text(f.attrs["deck"])).get("scan", {}).get("input", {})
    except (KeyError, tomllib.TOMLDecodeError):
        return {}


def _locate_input(args, f):
    """(file, dataset path, description) of the input to recompute from."""
    deck = _deck(f)
    from_deck = deck.get("source") == "file"
    name = args.dataset or (deck.get("dataset", "/input") if from_deck else "/input")
    if args.input:
        return args.input, name, f"{name} in {args.input}"
    if "input" in f:
        return None, "/input", f"/input in {os.path.basename(args.scan)} (write_input)"
    if from_deck and deck.get("file"):
        path = deck["file"]
        for candidate in (path, os.path.join(os.path.dirname(args.scan), path)):
            if os.path.exists(candidate):
                return candidate, name, f"{name} in {candidate} (the run's scan.input.file)"
        raise UsageError(f"{args.scan}: the run read its input from {path} (scan.input.file), which is not "
                         "here: give the input file as INPUT_H5")
    if deck.get("source", "generate") == "generate" and "seed" in deck:
        return "generate", deck, _describe_generator(deck, os.path.basename(args.scan))
    raise UsageError(f"{args.scan}: holds no /input and no readable deck attribute to regenerate it from "
                     "(the run generated its input and did not set scan.write_input = true): "
                     "give an input file as INPUT_H5")


def _describe_generator(gen, name):
    if gen.get("generator", "random") == "constant":
        what = f"every element {gen['value']}"
    else:
        what = (f"random uniform in [{gen['low']}, {gen['high']}] seed {gen['seed']}: splitmix64 of (seed, i) "
                "as solvers/scan/generate.hpp, reproduced in numpy")
    return f"regenerated from the deck stored in {name} (scan.input: {what})"


class _Generated:
    """The generated input as a read-only 1-D array, made chunk by chunk when sliced."""

    def __init__(self, gen, dtype, n):
        import numpy as np

        self.gen, self.dtype, self.shape, self.ndim = gen, np.dtype(dtype), (n,), 1

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, s):
        from .regen import scan_values

        lo, hi, _ = s.indices(len(self))
        return scan_values(self.gen, self.dtype, lo, max(0, hi - lo))


def verify(args):
    import numpy as np

    with open_h5(args.scan, SCAN) as f:
        if text(f.attrs.get("solver", "")) != "scan":
            raise UsageError(f"{args.scan}: no attribute solver = \"scan\": not {SCAN}")
        for a in ("type", "accumulate", "mode", "length"):
            if a not in f.attrs:
                raise UsageError(f"{args.scan}: no attribute '{a}': not {SCAN}")
        in_type, out_type = text(f.attrs["type"]), text(f.attrs["accumulate"])
        mode, n = text(f.attrs["mode"]), int(f.attrs["length"])
        if mode not in ("inclusive", "exclusive") or in_type not in TYPES or out_type not in TYPES:
            raise UsageError(f"{args.scan}: unknown type/accumulate/mode {in_type}/{out_type}/{mode}")
        y = dataset(f, "scan", SCAN)
        in_file, in_name, where = _locate_input(args, f)
        generated = in_file == "generate"
        g = f if in_file is None or generated else open_h5(in_file, "an HDF5 file with the scan's input")
        try:
            if generated:
                x = _Generated(in_name, in_type, n)
            else:
                x = dataset(g, in_name, "the scan's input (no such dataset; --dataset names it)")
            if x.ndim != 1 or y.ndim != 1:
                raise UsageError(f"input {x.shape} and result {y.shape} must be 1-D")
            if x.dtype != np.dtype(in_type):
                raise UsageError(f"{where}: holds {x.dtype}, but the scan's input was {in_type}")
            if y.dtype != np.dtype(out_type):
                raise UsageError(f"{args.scan}: /scan holds {y.dtype}, but its accumulate attribute says {out_type}")
            if len(x) != n or len(y) != n:
                raise UsageError(f"length {n} (attribute) but input {len(x)}, result {len(y)} elements")
            result = _compare(x, y, n, in_type, out_type, mode)
        finally:
            if g is not f:
                g.close()
        variant, ranks = text(f.attrs.get("variant", "?")), f.attrs.get("ranks", "?")
    print(f"{os.path.basename(args.scan)}: n = {n}, type {in_type} -> {out_type}, mode {mode}, "
          f"variant {variant}, {ranks} ranks")
    print(f"input: {where}")
    return _report(result, in_type)


def _compare(x, y, n, in_type, out_type, mode):
    """Streams through the arrays in chunks, carrying the running sums."""
    import numpy as np

    integer = in_type.startswith("int")
    # 64-bit reference: int64 wraps like the GPU's adds; float32 in float64; float64 in long double.
    acc = np.int64 if integer else (np.float64 if in_type == "float32" else np.longdouble)
    carry = acc(0)
    abs_carry = 0.0
    worst = {"diff": 0, "index": -1, "ratio": 0.0, "bad": 0, "first": None}
    eps = 0.0 if integer else float(np.finfo(np.dtype(out_type)).eps)
    k = 2 * math.log2(n + 1) + 2 * math.sqrt(n / 1024) + 4 if n else 0
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        xs = np.asarray(x[lo:hi]).astype(acc)
        got = np.asarray(y[lo:hi])
        inc = np.cumsum(xs, dtype=acc)
        inc += carry
        if mode == "inclusive":
            ref = inc
        else:
            ref = np.empty_like(inc)
            ref[0] = carry
            ref[1:] = inc[:-1]
        carry = inc[-1]
        if integer:
            ref = ref.astype(np.dtype(out_type))  # int32 output wraps modulo 2^32
            bad = np.nonzero(got != ref)[0]
            if len(bad):
                d = max(abs(int(got[i]) - int(ref[i])) for i in bad[:100000])
                if worst["first"] is None:
                    i = int(bad[0])
                    worst["first"] = (lo + i, int(got[i]), int(ref[i]))
                worst["bad"] += len(bad)
                worst["diff"] = max(worst["diff"], d)
        else:
            a = np.cumsum(np.abs(xs.astype(np.float64))) + abs_carry  # A_i: sum of |in| up to i
            abs_carry = a[-1]
            diff = np.abs(got.astype(acc) - ref).astype(np.float64)
            tol = eps * a * k
            ratio = np.where(tol > 0, diff / np.where(tol > 0, tol, 1), np.where(diff > 0, np.inf, 0))
            bad = np.nonzero(ratio > 1)[0]
            if len(bad):
                if worst["first"] is None:
                    i = int(bad[0])
                    worst["first"] = (lo + i, float(got[i]), float(ref[i]))
                worst["bad"] += len(bad)
            i = int(np.argmax(diff)) if len(diff) else 0
            if len(diff) and diff[i] > worst["diff"]:
                worst["diff"], worst["index"] = float(diff[i]), lo + i
            worst["ratio"] = max(worst["ratio"], float(ratio.max()) if len(ratio) else 0.0)
    return worst


def _report(w, in_type):
    if in_type.startswith("int"):
        print("reference: numpy cumsum in int64 (wrapping like the scan)")
        print(f"max abs difference = {w['diff']}")
    else:
        ref = "float64" if in_type == "float32" else "long double"
        print(f"reference: numpy cumsum in {ref}; tolerance eps * A_i * K(n) (docs/scan.md)")
        print(f"max abs difference = {w['diff']:.6g}, largest {w['ratio']:.3g} of the tolerance")
    if w["bad"]:
        i, got, ref = w["first"]
        print(f"MISMATCH: {w['bad']} element(s) differ, the first at index {i} (got {got}, expected {ref})")
        return 1
    print("OK")
    return 0


def register(sub):
    p = sub.add_parser("scan-verify", help="scan: recompute the prefix sum with numpy and compare (exit 1 on mismatch)")
    p.add_argument("scan", metavar="SCAN_H5")
    p.add_argument("input", metavar="INPUT_H5", nargs="?",
                   help="file holding the input (default: /input of SCAN_H5, or the run's scan.input.file, or "
                        "a generated input regenerated from the deck stored in SCAN_H5)")
    p.add_argument("--dataset", help="the input dataset in INPUT_H5 (default: the run's scan.input.dataset, or /input)")
    p.set_defaults(run=verify)
