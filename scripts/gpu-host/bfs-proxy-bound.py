#!/usr/bin/env python3
"""What a BFS search on P GPUs can at best take, from one GPU.

On a host with one GPU, P ranks sharing it run the multi-GPU level loop through peer memory
(`bfs.exchange = "peer"`). Their contexts take turns on the GPU, so each rank's kernels run
alone on the whole GPU: the profile's per-rank *steps* are what they cost on a GPU of their
own (the 4-rank proxy's big levels matched 4 real H200s' within 1%, docs/performance.md).
What the proxy cannot measure is the link: its shares move data inside one GPU.

Run on the GPU host, with the same roots for both logs (16 here):

  export TESSERA_BENCH_BFS_SCALES=26 TESSERA_BENCH_BFS_ROOTS=16 TESSERA_BFS_PROFILE=1 \\
         TESSERA_BENCH_BFS_PROFILED=16 TESSERA_BENCH_BFS_ALGORITHMS=direction_optimizing
  tessera bench bfs > g1.log 2>&1
  TESSERA_BENCH_BFS_EXCHANGE=peer mpirun -n 2 --bind-to none tessera bench bfs > p2.log 2>&1

then here: scripts/gpu-host/bfs-proxy-bound.py g1.log p2.log [--link-gbs 450] [--row 0]

For every profiled root, the P-GPU search takes at least
  the slowest rank's steps and rank 0's decision, level by level,
  + the time outside the levels (one GPU's search minus its levels),
  + each share's own time (its time less its wait), the smallest over the ranks,
  + the frontier words that each bottom-up level sends (this rank's words to every other
    rank: V / 8 (P - 1) / P bytes) at the link's peak.
The speed-up bound is the sum of one GPU's searches over the sum of these (the harmonic mean of
GTEPS weighs the roots as the sum of times does). It also prints a projection with every
share at a fixed cost instead of its own time.
"""
import argparse
import re
import sys

GRAPH = re.compile(r"scale \d+: (\d+) vertices")
HEADER = re.compile(r"bfs profile, root (\d+), (\d+) rank\(s\): ([\d.]+) ms")
LEVEL = re.compile(r"level\s+(\d+) (\S+)\s*: frontier\s+(\d+) vertices\s+(\d+) edges \| steps ([\d. /]+) ms"
                   r"(?: \| shares ([\d. /]+) \(waiting ([\d. /]+)\) and ([\d. /]+) \(waiting ([\d. /]+)\) ms)?"
                   r" \| decision ([\d.]+) ms")


def numbers(text):
    return [float(x) for x in text.split("/")]


def profiles(path):
    """The graph's vertex count (or None), and (row, root) -> {'ranks', 'ms', 'levels': [dict]}; row
    counts a root's profiles in log order."""
    out, seen, current, vertices = {}, {}, None, None
    with open(path) as f:
        for line in f:
            m = GRAPH.search(line)
            if m and vertices is None:
                vertices = int(m.group(1))
                continue
            m = HEADER.search(line)
            if m:
                root = int(m.group(1))
                row = seen.get(root, 0)
                seen[root] = row + 1
                current = out[(row, root)] = {"ranks": int(m.group(2)), "ms": float(m.group(3)), "levels": []}
                continue
            m = LEVEL.search(line)
            if m and current is not None:
                level = {"bottom_up": m.group(2) == "bottom-up", "steps": max(numbers(m.group(5))),
                         "decision": float(m.group(10)), "shares": 0, "own": 0.0}
                if m.group(6):
                    for share, wait in ((m.group(6), m.group(7)), (m.group(8), m.group(9))):
                        s, w = numbers(share), numbers(wait)
                        if max(s) > 0:
                            level["shares"] += 1
                            level["own"] += min(a - b for a, b in zip(s, w))
                current["levels"].append(level)
    return vertices, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("one_gpu", help="`tessera bench bfs` log of one rank, profiled")
    ap.add_argument("proxy", help="the same bench on P ranks sharing the GPU (exchange=peer), profiled")
    ap.add_argument("--row", type=int, default=0, help="which row of the proxy log (e.g. 1 for the second hubs value)")
    ap.add_argument("--link-gbs", type=float, default=450.0, help="a GPU's link bandwidth out, GB/s (NV18: 450)")
    ap.add_argument("--share-us", type=float, default=4.0, help="the fixed share cost of the projection, us")
    args = ap.parse_args()

    vertices, one = profiles(args.one_gpu)
    _, proxy = profiles(args.proxy)
    roots = sorted(root for (row, root) in one if row == 0 and (args.row, root) in proxy)
    if not roots:
        sys.exit("bfs-proxy-bound: no root is profiled in both logs (TESSERA_BENCH_BFS_PROFILED, the same roots)")
    ranks = proxy[(args.row, roots[0])]["ranks"]
    if vertices is None:
        sys.exit("bfs-proxy-bound: the one-GPU log does not say how many vertices the graph has")
    bitmap_bytes = vertices / 8
    words_ms = bitmap_bytes * (ranks - 1) / ranks / (args.link_gbs * 1e9) * 1e3

    t1 = steps = own = words = fixed = 0.0
    for root in roots:
        a, b = one[(0, root)], proxy[(args.row, root)]
        levels_one = sum(l["steps"] + l["decision"] for l in a["levels"])
        t1 += a["ms"]
        steps += sum(l["steps"] + l["decision"] for l in b["levels"]) + (a["ms"] - levels_one)
        own += sum(l["own"] for l in b["levels"])
        words += words_ms * sum(1 for l in b["levels"] if l["bottom_up"])
        fixed += args.share_us * 1e-3 * sum(l["shares"] for l in b["levels"])
    n = len(roots)
    bound = steps + own + words
    print(f"{n} roots, P = {ranks}: one GPU's mean search {t1 / n:.3f} ms")
    print(f"  bound: steps, decisions and the time outside the levels {steps / n:.3f} ms + the shares' least own "
          f"time {own / n:.3f} + the frontier words at {args.link_gbs:.0f} GB/s {words / n:.3f} = {bound / n:.3f} ms: "
          f"at most {t1 / bound:.3f}x")
    print(f"  with every share and word free: {t1 / steps:.3f}x; projection with shares of {args.share_us:g} us and the words "
          f"at the link's peak: {(steps + fixed + words) / n:.3f} ms, {t1 / (steps + fixed + words):.3f}x")


if __name__ == "__main__":
    main()
