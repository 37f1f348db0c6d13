"""tessera's counter-based generators (splitmix64), reproduced in numpy, so that the checkers can
regenerate a run's generated input from the deck stored in its output (the `deck` attribute):
solvers/scan/generate.hpp (scan.input) and solvers/spmv/random.hpp, generate.cpp (spmv.matrix).
Every value is a pure function of (seed, index), the same on any number of ranks."""
import math

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def _u64(v):
    import numpy as np

    return np.asarray(v, dtype=np.uint64)


def mix64(x):
    """splitmix64's finaliser on a uint64 array (wrapping arithmetic)."""
    import numpy as np

    with np.errstate(over="ignore"):
        x = _u64(x) + np.uint64(GOLDEN)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def mix64_int(v):
    """mix64 of one Python int, in Python ints (exact)."""
    v = (v + GOLDEN) & M64
    v = ((v ^ (v >> 30)) * 0xBF58476D1CE4E5B9) & M64
    v = ((v ^ (v >> 27)) * 0x94D049BB133111EB) & M64
    return v ^ (v >> 31)


def mul_high(a, b):
    """High 64 bits of a * b (a: uint64 array, b: a Python int below 2^64), by 32-bit halves."""
    import numpy as np

    m = np.uint64(0xFFFFFFFF)
    s = np.uint64(32)
    a0, a1 = a & m, a >> s
    b0, b1 = np.uint64(b & 0xFFFFFFFF), np.uint64(b >> 32)
    with np.errstate(over="ignore"):
        p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
        mid = (p00 >> s) + (p01 & m) + (p10 & m)
        return p11 + (p01 >> s) + (p10 >> s) + (mid >> s)


# ---- scan: solvers/scan/generate.hpp ----

def scan_values(gen, dtype, first, count):
    """Elements [first, first + count) of the scan input that GEN ([scan.input] of the resolved
    deck) generates, as DTYPE: generated_value<T>(g, i) of generate.hpp."""
    import numpy as np

    dtype = np.dtype(dtype)
    if gen.get("generator", "random") == "constant":
        return np.full(count, gen["value"]).astype(dtype) if dtype.kind == "f" else \
            np.full(count, int(float(gen["value"])), dtype=np.int64).astype(dtype)
    seed = int(gen["seed"]) & M64
    with np.errstate(over="ignore"):
        h = mix64(np.uint64(mix64_int(seed)) + np.arange(first, first + count, dtype=np.uint64))
    low, high = float(gen["low"]), float(gen["high"])
    if dtype.kind in "iu":
        lo, hi = int(low) & M64, int(high) & M64
        span = (hi - lo + 1) & M64  # 0: all 2^64 values
        r = h if span == 0 else mul_high(h, span)
        with np.errstate(over="ignore"):
            return (np.uint64(lo) + r).view(np.int64).astype(dtype)
    u = (h >> np.uint64(11)).astype(np.float64) * 2.0 ** -53  # [0, 1), exact
    return (low + u * (high - low)).astype(dtype)  # separately rounded, as the C++ (no FMA)


# ---- spmv: solvers/spmv/random.hpp and generate.cpp ----

STREAM_LENGTH, STREAM_COLUMN, STREAM_VALUE = 1, 2, 3


def _stream_key(stream):
    return mix64_int((stream + 0x632BE59BD9B4E019) & M64)


def random_bits(seed, stream, index):
    """random_bits(seed, stream, index) of random.hpp; seed and index uint64 arrays (broadcast)."""
    import numpy as np

    with np.errstate(over="ignore"):
        return mix64(mix64(_u64(seed) ^ np.uint64(_stream_key(stream))) + _u64(index))


def powerlaw_lengths(spec, rows):
    """Row lengths of the power-law matrix: min * u^(-1/(exponent-1)), below the cap."""
    import numpy as np

    n, lo = int(spec["n"]), int(spec["min_row_length"])
    cap = min(int(spec["max_row_length"]), n) if int(spec["max_row_length"]) > 0 else n
    if cap <= 0:
        return np.zeros(len(rows), dtype=np.int64)
    bits = random_bits(np.uint64(int(spec["seed"]) & M64), STREAM_LENGTH, rows)
    u = ((bits >> np.uint64(11)).astype(np.float64) + 1.0) * 2.0 ** -53  # (0, 1]
    p = -1.0 / (float(spec["exponent"]) - 1.0)
    length = lo * np.power(u, p)
    # numpy's vector pow may differ from the C library's in the last bit: where that could move
    # the truncation, take math.pow (the C library's pow, as std::pow).
    close = np.nonzero(np.abs(length - np.round(length)) <= 1e-9 * np.maximum(length, 1.0))[0]
    for i in close:
        length[i] = lo * math.pow(float(u[i]), p)
    out = np.where(length < cap, np.maximum(min(lo, cap), np.trunc(np.minimum(length, cap))), cap)
    return out.astype(np.int64)


def powerlaw_entries(spec, first, count):
    """(row, col, val) of rows [first, first + count) of the power-law matrix, repeats unsummed."""
    import numpy as np

    n = int(spec["n"])
    rows = np.arange(first, first + count, dtype=np.uint64)
    lengths = powerlaw_lengths(spec, rows)
    with np.errstate(over="ignore"):
        row_seed = np.uint64(int(spec["seed"]) & M64) + mix64(rows)
    total = int(lengths.sum())
    row = np.repeat(np.arange(first, first + count, dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    k = (np.arange(total, dtype=np.int64) - np.repeat(starts, lengths)).astype(np.uint64)
    seeds = np.repeat(row_seed, lengths)
    c = random_bits(seeds, STREAM_COLUMN, k)
    v = random_bits(seeds, STREAM_VALUE, k)
    magnitude = (np.uint64(1) + (v >> np.uint64(8)) % np.uint64(4)).astype(np.float64)
    val = np.where((v & np.uint64(1)) == 1, -magnitude, magnitude)
    col = (c % np.uint64(n)).astype(np.int64)
    return row, col, val


def generated_product(spec, x):
    """(A x, |A| |x|, nonzeros) in float64 for the generated matrix SPEC ([spmv.matrix] of the
    resolved deck: poisson7, poisson27, banded or powerlaw), without storing A."""
    import numpy as np

    source, n = spec["source"], int(spec["n"])
    x = np.asarray(x, dtype=np.float64)
    if source in ("poisson7", "poisson27"):
        full = source == "poisson27"
        g = np.zeros((n + 2,) * 3)
        g[1:-1, 1:-1, 1:-1] = x.reshape(n, n, n)  # [z, y, x]: row = x + n (y + n z)
        a = np.abs(g)
        y = np.zeros((n, n, n))
        scale = np.zeros((n, n, n))
        for dz in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    offsets = (dx != 0) + (dy != 0) + (dz != 0)
                    if not full and offsets > 1:
                        continue
                    w = (26.0 if full else 6.0) if offsets == 0 else -1.0
                    sl = (slice(1 + dz, n + 1 + dz), slice(1 + dy, n + 1 + dy), slice(1 + dx, n + 1 + dx))
                    y += w * g[sl]
                    scale += abs(w) * a[sl]
        nnz = (3 * n - 2) ** 3 if full else n ** 3 + 6 * n * n * (n - 1)
        return y.ravel(), scale.ravel(), nnz
    if source == "banded":
        h = int(spec["half_bandwidth"])
        y = (2.0 * h + 1.0) * x
        scale = (2.0 * h + 1.0) * np.abs(x)
        for d in range(1, min(h, n - 1) + 1):
            y[:-d] -= x[d:]
            y[d:] -= x[:-d]
            scale[:-d] += np.abs(x[d:])
            scale[d:] += np.abs(x[:-d])
        nnz = n + 2 * sum(n - d for d in range(1, min(h, n - 1) + 1))
        return y, scale, nnz
    if source == "powerlaw":
        y, scale, nnz = np.zeros(n), np.zeros(n), 0
        block = 1 << 16
        for first in range(0, n, block):
            count = min(block, n - first)
            row, col, val = powerlaw_entries(spec, first, count)
            # Repeated columns of a row are summed into one entry (assemble_rows).
            key = row * n + col
            uniq, inv = np.unique(key, return_inverse=True)
            summed = np.zeros(len(uniq))
            np.add.at(summed, inv, val)
            r, c = uniq // n, uniq % n
            prod = summed * x[c]
            y += np.bincount(r, weights=prod, minlength=n)
            scale += np.bincount(r, weights=np.abs(prod), minlength=n)
            nnz += len(uniq)
        return y, scale, nnz
    raise ValueError(source)
