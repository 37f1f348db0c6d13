"""The scaling model of docs/scaling.md: time per step of each solver as a function of the
problem size and the rank count P, calibrated on the 1-4 GPU numbers of docs/performance.md and
projected to 1,024 GPUs on an InfiniBand cluster. `tessera-post scaling-model` prints the
doc's tables from this module and plots the efficiency curves.

Every number below is either MEASURED (docs/performance.md: section, date, commit) or ASSUMED
(the cluster, and a few constants no measurement pins down); the doc lists them the same way.
Times are in seconds, sizes in bytes, rates in per second, unless a name says otherwise.
"""
import math
from dataclasses import dataclass, field, replace

RANKS = [2 ** k for k in range(11)]  # 1 .. 1024
PAYING = 0.5  # "stops paying": parallel efficiency below this

# ---------------------------------------------------------------------------------------------
# The cluster (ASSUMED): 4 GPUs per node joined by NVLink, one 400 Gb/s NDR port per GPU.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cluster:
    gpus_per_node: int = 4
    # One exchange (one NCCL group, launch to completion): MEASURED over NVLink (NVLINK_ALPHA);
    # a field here only so that the sensitivity table can try a lower one.
    exchange_alpha: float = 19e-6
    # 400 Gb/s = 50 GB/s per GPU and direction; NCCL reaches ~90% of it on NDR.
    ib_bw: float = 45e9
    # Added to an exchange whose messages cross nodes (NCCL's tuning table: 2.7 us per network
    # hop of a ring with the LL protocol, 5 us per tree level; the brief's 2-5 us).
    alpha_net: float = 3e-6
    # Each further peer of a many-peer NCCL group (allgather built of P-1 sends, alltoallv):
    # the proxy posts one network message per peer. Nothing here measured it.
    per_peer: float = 1e-6
    # One stage of a small host-MPI collective (recursive doubling / tree) between nodes.
    mpi_stage_net: float = 3e-6


# ---------------------------------------------------------------------------------------------
# MEASURED in one node (docs/performance.md); section, date and commit with each number.
# ---------------------------------------------------------------------------------------------

# "Communication: `tessera bench comm`", re-measured 2026-11-22, commit f1ef9c5, 2x H200, NCCL:
# a 1 KiB ring shift takes 0.019 ms (the floor of one host-launched NCCL exchange, launch and
# completion included), 64 MiB move at 259 GB/s per rank.
NVLINK_ALPHA = 19e-6
NVLINK_BW = 259e9
# "Scan", third round, 2026-11-22, commit e47ec09: "the exscan alone is 1.4 us" (host MPI, one
# node): one stage of a small host collective inside a node.
MPI_STAGE_NODE = 1.4e-6


@dataclass(frozen=True)
class Gpu:
    name: str
    memory: float  # nominal bytes
    # N-body: G interactions/s of the default kernel by bodies per launch (targets = sources).
    nbody_rates: tuple
    # FDTD: per-step time = fdtd_t0 + cells / fdtd_rate (one rank, PEC faces, no exchange);
    # fdtd_fused_rate the same for the fused sweep (H and E in one pass, 48 instead of 72 B/cell).
    fdtd_t0: float
    fdtd_rate: float
    fdtd_fused_rate: float
    # Scan (int32): the look-back scan's rate (elements/s) and the copy bandwidth (the reduce
    # pass of a distributed scan reads every element once at it).
    scan_rate: float
    copy_bw: float
    # SpMV/CG: one CG iteration (7-point Poisson, float64, hybrid kernel) = t0 + rows * per_row;
    # the product alone (hybrid kernel) = rows * spmv_per_row.
    cg_per_row: float
    spmv_per_row: float
    # BFS (scale 26, edgefactor 16): see BFS below (same numbers on both GPUs).
    measured_note: str = ""
    # FDTD's blocked sweep (k = 4 steps per pass, PEC, vacuum): cell-updates/s, one rank.
    fdtd_blocked_rate: float = 0.0


USABLE_MEMORY = 0.9  # ASSUMED: of the nominal GPU memory (CUDA context, NCCL buffers, slack)

# "N-body", fourth round, 2026-11-22, commit 206d913, H100, equal masses (the default kernel
# per size: tiled at 4K, split from 16K). The H200 runs of 66848b4 and ba0ff1f measured the same
# rates (2222 / 2225 at 256K / 1M), so both GPUs use this table.
NBODY_RATES = ((4096, 1279e9), (16384, 2026e9), (65536, 2143e9), (262144, 2226e9), (1048576, 2225e9))
NBODY_FLOOR = 5e-6  # ASSUMED: the shortest force kernel (launch-bound) below 4096 bodies

# "FDTD", 2026-11-21, H100: 128^3 in 0.082 ms and 512^3 in 3.77 ms per step give
# t0 = 23.4 us and 35.8 G cells/s (256^3 then predicts 0.492 ms; measured 0.509).
_F_SMALL, _F_LARGE = (128 ** 3, 0.082e-3), (512 ** 3, 3.77e-3)
FDTD_RATE_H100 = (_F_LARGE[0] - _F_SMALL[0]) / (_F_LARGE[1] - _F_SMALL[1])
FDTD_T0 = _F_SMALL[1] - _F_SMALL[0] / FDTD_RATE_H100
# "Four GPUs" (docs/performance.md), 2026-11-28, seventh session, commit 6523e31, 4x H200: one
# H200 alone 2.750 ms per split step at 512^3, PEC faces (the P = 4 run's reference; 2.747 on
# its own; t0 ASSUMED the H100's; eeece20 measured 2.752, which the model used before), and
# P = 4 (1x2x2, nccl) 2.898 ms: the decomposed step costs 5.4% more (the shell update of the
# exchanged faces, packs, the self-wrap of x) with the halo hidden (eeece20: 5.6%).
FDTD_RATE_H200 = 512 ** 3 / (2.750e-3 - FDTD_T0)
FDTD_SPLIT_COST = 2.8978e-3 / 2.750e-3 - 1
# Efficiencies the split-step term is checked against: (P, measured, source). The halo hides
# on every grid, so the z cut (a GPU run's default on up to 4 ranks) has the same term.
FDTD_MEASURED_WEAK = ((2, 0.953, "d8f654e", None), (4, 0.952, "d8f654e", None),
                      (4, 0.953, "22ea52c, issue 32", None), (4, 0.947, "eeece20", None),
                      (4, 0.949, "6523e31, fitted", None), (4, 0.956, "6523e31", "z"), (2, 0.953, "1bffe21", "z"))
# The fused sweep, one rank, 512^3, PEC, vacuum: 2.568 ms on an H100 ("The fused sweep across
# ranks, periodic axes and CPML", 2026-11-24, commit 84c7b34), 2.049 ms on an H200 ("Four GPUs",
# 6523e31, the P = 4 runs' reference; eeece20: 2.048).
FDTD_FUSED_RATE_H100 = 512 ** 3 / (2.568e-3 - FDTD_T0)
FDTD_FUSED_RATE_H200 = 512 ** 3 / (2.049e-3 - FDTD_T0)
# The fused step on MPI_Dims_create's grid exchanges before its sweep and overlaps nothing
# (docs/fdtd.md "The fused sweep"): per axis cut into ranks, all three E components of both
# ghost layers in corners mode (one phase per axis, in turn), then the tangential H of the low
# layer: 32 bytes per face cell, k + 1 exchanges in a row for k cut axes. "Four GPUs", 6523e31,
# 4x H200, weak 512^3 per rank (1x2x2): 2.364 ms per step against 2.049 alone (86.7%), the
# exchange alone 0.247 ms. The exchange is fitted below as rounds x alpha + bytes / NVLink +
# bytes / FDTD_FUSED_OFFLINK (the time the link does not explain, charged per byte: packs and
# unpacks phase by phase; one rank whose six faces were all self-copies spent 0.33 ms on 25 MB
# with no link at all, H100, 84c7b34); what is left, 3.3%, is the sweep's own extra work on a
# split grid (the low ghost layer's H).
FDTD_FUSED_MEASURED = {"ranks": 4, "seconds": 2.3638e-3, "alone": 2.049e-3, "exchange": 0.2469e-3}
FDTD_FUSED_SPLIT_COST = (FDTD_FUSED_MEASURED["seconds"] - FDTD_FUSED_MEASURED["exchange"]) / FDTD_FUSED_MEASURED["alone"] - 1
FDTD_FUSED_BYTES_PER_FACE_CELL = 32  # E: 3 components x 2 sides, H: 2 components x 1 side, float32
# The same grid before, out of sample now: (efficiency, exchange alone, source). eeece20 (2.355
# ms against 2.048, the fit until the seventh session) and issue 32's table (22ea52c: 2.342 ms
# against 2.057).
FDTD_FUSED_CHECKS = ((0.870, 0.254e-3, "eeece20"), (0.878, 0.219e-3, "22ea52c, issue 32"))


def fdtd_plane_bytes(n):
    """One float32 plane of an n x n x m block as the cuda engine stores it: rows of n + 2 cells
    padded to 32 floats, n + 2 rows (544 x 514 x 4 B = 1.12 MB at 512)."""
    return 4.0 * 32 * math.ceil((n + 2) / 32) * (n + 2)


# The fused sweep on a z cut (fdtd.ranks = [1, 1, P], what a GPU run takes on up to 4 ranks
# since ac37fa6 / 94581d2): eight whole planes in one group (E's three components both ways,
# the tangential H up), no packing; the inner z stretches run while they travel, the two end
# stretches after ("overlap"; TESSERA_FDTD_FUSED_OVERLAP=0 waits for the planes first).
# "Four GPUs", 6523e31, 4x H200, 512^3 per rank, P = 4: 2.160 ms with the overlap (94.9% of
# 2.049), 2.320 ms without (88.4%), the exchange alone 0.183 ms (0.179 in the overlapped run).
# Fitted: without the overlap t = (1 + FDTD_FUSED_Z_COST) t_f + x, with x = alpha + 8 planes /
# FDTD_FUSED_PLANE_BW (55 GB/s per rank: NCCL's rate for 1.1 MB messages, not the link's);
# with it t = (1 + FDTD_FUSED_Z_COST) t_f + max(0, x - FDTD_FUSED_Z_HIDDEN), the hidden part
# fitted (0.16 of the 0.18 ms). Checked against P = 2: 94.5% (1bffe21), 94.8% and without the
# overlap 88.8% (4f9f897, fifth session).
FDTD_FUSED_Z_PLANES = 8
FDTD_FUSED_Z_MEASURED = {"ranks": 4, "on": 2.1600e-3, "off": 2.3203e-3, "alone": 2.049e-3, "exchange": 0.1826e-3,
                         "efficiency": (0.949, 0.884)}  # as the bench prints them, each against its run's PEC rank
FDTD_FUSED_Z_COST = ((FDTD_FUSED_Z_MEASURED["off"] - FDTD_FUSED_Z_MEASURED["exchange"])
                     / FDTD_FUSED_Z_MEASURED["alone"] - 1)
FDTD_FUSED_PLANE_BW = (FDTD_FUSED_Z_PLANES * fdtd_plane_bytes(512)
                       / (FDTD_FUSED_Z_MEASURED["exchange"] - NVLINK_ALPHA))
FDTD_FUSED_Z_HIDDEN = FDTD_FUSED_Z_MEASURED["exchange"] - (
    FDTD_FUSED_Z_MEASURED["on"] - (1 + FDTD_FUSED_Z_COST) * FDTD_FUSED_Z_MEASURED["alone"])
FDTD_FUSED_Z_CHECKS = ((2, True, 0.945, "1bffe21"), (2, True, 0.948, "4f9f897"), (2, False, 0.888, "4f9f897"))

# The blocked sweep across ranks (fdtd.sweep = "blocked" on a z cut, docs/fdtd.md "Across
# ranks"; auto takes it where the fused sweep would run, on up to 4 ranks): k = 4 steps per
# pass; before each pass a rank sends the 4 planes next to each z face, all six components,
# whole (2 x 6 x 4 planes: 53.7 MB per pass at 512^3, 12 messages), and since 1bffe21 sweeps
# the inner z stretches while they travel (TESSERA_FDTD_BLOCKED_OVERLAP=1, the default now).
# One GPU, PEC vacuum, k = 4: 138.2 G cell-updates/s on an H100 (docs/fdtd.md, "The blocked
# sweep", 2026-11-28); 0.984 ms per step at 512^3 on an H200 ("Four GPUs", 6523e31, the P = 4
# run's reference; 0.977-0.981 in the other runs).
FDTD_BLOCKED_STEPS = 4
FDTD_BLOCKED_RATE_H100 = 138.2e9
FDTD_BLOCKED_RATE_H200 = 512 ** 3 / 0.984e-3
# "Four GPUs", 4x H200, 512^3 per rank, nccl: P = 4 (6523e31) 1.054 ms with the overlap (93.3%
# of one PEC rank), 1.152 ms without (85.3%), the exchange alone 0.169 ms per step; P = 2
# (1bffe21, overlap on) 1.076 ms (91.2%), the exchange alone 0.202 ms per step. The exchange
# per pass is alpha + 53.7 MB / B, B fitted per placement: 82 GB/s per rank at P >= 3 (each
# side to its own neighbour), 68 GB/s at P = 2 (both sides to the one other rank). Without the
# overlap t = t_b + x / k (the recomputed planes cost nothing visible: 1.152 = 0.984 + 0.169
# within 0.1%; P = 2, 4f9f897: 1.178 = 0.977 + 0.200); with it t = t_b + max(0, x / k - H),
# H = FDTD_BLOCKED_HIDDEN fitted at P = 4 (0.098 of the 0.169 ms per step). The inner third
# of a pass lasts about 0.33 ms per step, twice the exchange, so H is not the stretches'
# length: what stays exposed is the GPU shared with NCCL's kernels and the third stretch's
# recomputed layers (1.4%), which the fit does not tell apart.
FDTD_BLOCKED_MEASURED = {"ranks": 4, "on": 1.0543e-3, "off": 1.1517e-3, "alone": 0.984e-3, "exchange": 0.1687e-3}
FDTD_BLOCKED_MEASURED_P2 = {"ranks": 2, "on": 1.0761e-3, "alone": 0.981e-3, "exchange": 0.2018e-3}


def fdtd_blocked_pass_bytes(n, k=FDTD_BLOCKED_STEPS):
    """Bytes a rank sends per pass of the blocked sweep across ranks: 2 sides x 6 components x k
    planes."""
    return 2 * 6 * k * fdtd_plane_bytes(n)


FDTD_BLOCKED_PLANE_BW = {p: fdtd_blocked_pass_bytes(512) / (FDTD_BLOCKED_STEPS * m["exchange"] - NVLINK_ALPHA)
                         for p, m in ((2, FDTD_BLOCKED_MEASURED_P2), (4, FDTD_BLOCKED_MEASURED))}
FDTD_BLOCKED_HIDDEN = FDTD_BLOCKED_MEASURED["exchange"] - (FDTD_BLOCKED_MEASURED["on"] - FDTD_BLOCKED_MEASURED["alone"])
# Out of sample: (P, overlap, measured efficiency of one PEC rank, source).
FDTD_BLOCKED_CHECKS = ((4, False, 0.853, "6523e31"), (2, True, 0.912, "1bffe21"), (2, False, 0.829, "4f9f897"))

# "Re-measured after the one-skeleton restructuring (2026-11-24)", commit 78d58e2, H100: scan
# lookback 328.1 G int32/s at 2^30; copy bandwidth 2991 GB/s ("SpMV", 2026-11-24, afb3f2f).
# H200 ("Scan", second round, 2026-11-22, commit b5e4bbf): lookback 406.5 G/s at 2^28; copy
# 4158 GB/s ("FDTD weak scaling (H200)", d8f654e).
SCAN_T0_SCAN = 5e-6    # ASSUMED: launch and look-back chain of the scan pass
SCAN_T0_REDUCE = 3e-6  # ASSUMED: launch of the reduce pass
# The distributed look-back, 2^28 int32 per rank, totals on nccl (the path a run takes): (P,
# seconds, source). Third round, e47ec09, 2x H200: 0.934 ms; "The owed rows measured on 2
# H200s", fifth session, 4f9f897: 0.938 ms (71.3%); "Four GPUs", 2026-11-28, 6523e31, 4x H200:
# 0.933 ms (72.3% of P x one GPU). Out of sample: no term is fitted to them.
SCAN_MEASURED = ((2, 0.934e-3, "e47ec09"), (2, 0.938e-3, "4f9f897"), (4, 0.9333e-3, "6523e31"))
# e47ec09's run: the host path (device sync after the reduction, host MPI exscan, relaunch)
# spent 0.19 ms between the passes, of which the exscan itself 1.4 us (MPI_STAGE_NODE).
SCAN_HOST_PATH = 0.19e-3
# The host path measured: (P, efficiency of P x one GPU, source). "One, two and four GPUs after
# the geometry round", 2026-11-28, commit eeece20, 2x and 4x H200: 62.0% / 61.5% at P = 2 / 4.
# These are the host path (the bench's "dist lookback P=N" row): 464.7 G/s at P = 2 is e47ec09's
# host-exscan row (465.4), and the "exscan + wait (0.48 ms at P = 2)" it quotes is that row's
# phase; the row with the totals on nccl reports no phases. "Four GPUs", 6523e31: 62.1% at
# P = 4 (1.151 ms). Out of sample for step_host.
SCAN_MEASURED_HOST_PATH = ((2, 0.620, "eeece20"), (4, 0.615, "eeece20"), (4, 0.621, "6523e31"))

# "SpMV", 2026-11-24, H100: one unpreconditioned CG iteration on the 7-point Poisson 256^3 with
# the hybrid kernel takes 1.143 ms (byte model: 188 bytes per row, of which the SpMV's 100).
# H200: 0.864 ms ("Four GPUs", 2026-11-28, commit 1bffe21, `bench spmv`, P = 1, the same host
# as the P = 2 row; 85a104e measured 0.882, which the model used before, and before that it
# projected 0.913: the H100's per-row cost / 1.26, the H200/H100 ratio of FDTD and scan).
CG_T0 = 30e-6  # ASSUMED: the iteration's fixed cost (6 kernels, 2 device syncs)
CG_PER_ROW_H100 = (1.143e-3 - CG_T0) / 256 ** 3
CG_PER_ROW_H200 = (0.8636e-3 - CG_T0) / 256 ** 3
# The product alone, hybrid kernel, 7-point Poisson 256^3: 404.6 GFLOP/s on an H100 ("SpMV",
# 2026-11-24, commit afb3f2f; 2 flops per nonzero, 7 n^3 - 6 n^2 nonzeros: 0.579 ms) and 0.440 ms
# on an H200 ("Four GPUs", 2026-11-28, commit 6523e31, `tessera run`, P = 1, median of 60
# multiplies; eeece20's 0.437 before).
SPMV_PER_ROW_H100 = 2 * (7 * 256 ** 3 - 6 * 256 ** 2) / 404.6e9 / 256 ** 3
SPMV_PER_ROW_H200 = 0.440e-3 / 256 ** 3
# The distributed product, weak, ~256^3 rows per rank, hybrid, H200 (`tessera run`, the log's
# median; scripts/gpu-host/spmv-weak.sh): "Four GPUs", 2026-11-28, commit 6523e31, after the
# ghost rows went into one kernel (ed8e0ac) and the exchange onto a side stream, posted after
# the local product (07188c7, 0d568f7): P = 2 (n = 323) 0.472 ms, P = 4 (n = 406) 0.475 ms, +32
# and +35 us over one GPU (85a104e / eeece20 before those changes: 0.518 / 0.571 ms). Phases at
# P = 4 (slowest rank): pack 0.010, local product 0.450 ms (2.6% slower than alone while NCCL's
# kernels share the GPU; 85a104e: 7.1%), ghost wait 0.003, ghost product 0.011.
# NCCL_MAX_CTAS=2 changes nothing (0.470 / 0.473). The term (Spmv.ghost_cost): the local product
# x SPMV_LOCAL_SLOWDOWN + a fixed cost + a cost per row with ghost entries, the last two fitted
# to the P = 2 and P = 4 products (spmv_ghost_fit).
SPMV_MEASURED_WEAK = {2: (323, 0.472e-3, "6523e31"), 4: (406, 0.475e-3, "6523e31")}
SPMV_LOCAL_SLOWDOWN = 0.450e-3 / (406 ** 3 / 4 * SPMV_PER_ROW_H200) - 1
# The CG iteration on the same grids, `bench spmv` (hybrid): P = 2 0.909 ms (1bffe21), P = 4
# 0.911 ms (6523e31): out of sample.
CG_MEASURED_WEAK = {2: (323, 0.9094e-3, "1bffe21"), 4: (406, 0.9114e-3, "6523e31")}

# BFS, direction-optimizing, Kronecker scale 26, edgefactor 16. "Four GPUs", 2026-11-28, commit
# 6523e31, 1 / 2 / 4 H200s, nccl + peer memory, levels on the GPU, 8 roots validated: 328.5 /
# 543.4 / 842.4 GTEPS (harmonic means), i.e. a mean search of 16 V / GTEPS = 3.27 / 1.98 / 1.27
# ms (medians 3.097 / 1.870 / 1.216). Fitted below to t = W / P + S + [P > 1] (X + bitmap bytes
# / NVLink): W the work that divides, S what does not, X the shares. The per-level profile of
# the same run (TESSERA_BFS_PROFILE=1, one root, 8 levels) says what S and X are made of: every
# level costs about 18 us of small steps, decisions and gaps on any P (0.14 ms a search), and
# the 4 big levels divide 3.46x, not 4x, on 4 GPUs (Kronecker's skew), which W / P + S can only
# show as a larger S; on P > 1 each level pays two peer-memory shares of >= 7 us each (0.19-0.22
# ms a search at P = 4).
BFS_MEASURED_PEER = {p: 16 * 2.0 ** 26 / (g * 1e9) for p, g in ((1, 328.5), (2, 543.4), (4, 842.4))}
# The fits before, now out of sample (speed-ups): eeece20 ("One, two and four GPUs after the
# geometry round", the fit until the seventh session): 322.2 / 541.8 / 828.7 GTEPS; BFS seventh
# round, commit 3a0793e, links woken: median 3.23 / 1.92 / 1.23 ms.
BFS_MEASURED_PEER_EEECE20 = {p: 16 * 2.0 ** 26 / (g * 1e9) for p, g in ((1, 322.2), (2, 541.8), (4, 828.7))}
BFS_MEASURED_PEER_3A0793E = {1: 3.23e-3, 2: 1.92e-3, 4: 1.23e-3}
# "The owed rows measured on 2 H200s", fifth session, 4f9f897: 544.6 against 328.8 GTEPS.
BFS_MEASURED_P2_4F9F897 = 544.6 / 328.8
# Scale 27 ("Four GPUs", commit 1bffe21, the same host): 305.7 / 549.1 / 937.2 GTEPS on 1 / 2 /
# 4 H200s, a mean search of 7.02 / 3.91 / 2.29 ms (medians 7.186 / 3.999 / 2.316). W 2^(s - 26)
# would make one GPU's scale-27 search 6.14 ms: the work per edge grows 15% from scale 26 to 27
# (GTEPS fall from 328.5 to 305.7). bfs_scale_growth() is that factor per scale, fitted to the
# one-GPU search at scale 27 and ASSUMED to hold per scale up to 31; the 2- and 4-GPU searches
# at scale 27 are out of sample.
BFS_MEASURED_PEER_27 = {p: 16 * 2.0 ** 27 / (g * 1e9) for p, g in ((1, 305.7), (2, 549.1), (4, 937.2))}
# Fifth round, commit fc9429d, 1 H200: 3.64 ms with the host running the level loop, 3.39 with
# the GPU: the host loop's waits and launches cost 0.25 ms per search (~30 us x 8 levels).
BFS_HOST_LOOP = 3.64e-3 - 3.39e-3
# Third round (1312f87 / f1ef9c5): "~10 exchanges of a search" on the transport path.
BFS_ROUNDS = 10
BFS_BOTTOM_UP_LEVELS = 2  # fifth round's profile: two bottom-up levels per search
BFS_PAIR_BYTES = 8        # two uint32 (the cuda backend: ids < 2^32)
# Pairs a rank sends per search per vertex it owns, times (P-1)/P: ESTIMATED from the hub
# level's 0.13-0.20 ms exchange on 2 H200s (fourth round, 2c9c42b): ~3-4 M pairs per rank.
BFS_PAIRS_PER_VERTEX = 0.2
# Fourth round, 2c9c42b / c0b0a4a: transport (nccl) path with the host loop, scale 26: 423.7 /
# 635.5 GTEPS on 2 / 4 H200s against 287.3 on one (host loop): 1.47x / 2.21x. Out of sample.
BFS_MEASURED_TRANSPORT_SPEEDUP = {2: 423.7 / 287.3, 4: 635.5 / 287.3}
BFS_MAX_SCALE = 31  # the cuda backend refuses 2^32 vertices (solvers/bfs/cuda/cuda_engine.cu)

GPUS = {
    "h100": Gpu("H100 80GB", 80e9, NBODY_RATES, FDTD_T0, FDTD_RATE_H100, FDTD_FUSED_RATE_H100, 328.1e9, 2991e9,
                CG_PER_ROW_H100, SPMV_PER_ROW_H100, fdtd_blocked_rate=FDTD_BLOCKED_RATE_H100),
    "h200": Gpu("H200 141GB", 141e9, NBODY_RATES, FDTD_T0, FDTD_RATE_H200, FDTD_FUSED_RATE_H200, 406.5e9, 4158e9,
                CG_PER_ROW_H200, SPMV_PER_ROW_H200, fdtd_blocked_rate=FDTD_BLOCKED_RATE_H200),
}


# ---------------------------------------------------------------------------------------------
# The network as the solvers use it.
# ---------------------------------------------------------------------------------------------


@dataclass
class Net:
    cluster: Cluster

    def nodes(self, p):
        return math.ceil(p / self.cluster.gpus_per_node)

    def multi(self, p):
        return p > self.cluster.gpus_per_node

    def alpha(self, p):
        """Latency of one exchange (one NCCL group) at P ranks."""
        return self.cluster.exchange_alpha + (self.cluster.alpha_net if self.multi(p) else 0.0)

    def bw(self, p):
        """Bandwidth of the slowest link a neighbour exchange crosses."""
        return self.cluster.ib_bw if self.multi(p) else NVLINK_BW

    def many_peers(self, p, recv_bytes):
        """An exchange with all P-1 other ranks (P-1 sends, P-1 receives in one group):
        latency, a per-peer cost across nodes, and the received bytes, of which the share from
        other nodes comes through this GPU's NIC."""
        if p == 1:
            return 0.0
        t = self.alpha(p)
        if self.multi(p):
            g = self.cluster.gpus_per_node
            t += self.cluster.per_peer * (p - 1)
            t += max(recv_bytes * (p - g) / (p - 1) / self.cluster.ib_bw, recv_bytes * (g - 1) / (p - 1) / NVLINK_BW)
        else:
            t += recv_bytes / NVLINK_BW
        return t

    def allreduce_small(self, p):
        """A host-MPI allreduce of a few doubles: log2 stages, the ones between nodes slower."""
        if p == 1:
            return 0.0
        inside = math.log2(min(p, self.cluster.gpus_per_node))
        between = math.ceil(math.log2(self.nodes(p))) if self.nodes(p) > 1 else 0
        return inside * MPI_STAGE_NODE + between * self.cluster.mpi_stage_net


@dataclass
class Point:
    ranks: int
    seconds: float       # per step / search / scan / iteration
    compute: float       # what one rank computes, at its size's rate
    comm: float          # communication time, before overlap
    exposed: float       # seconds - compute: what communication (and its latency) adds
    sent: float          # bytes sent per rank per step
    messages: int        # messages sent per rank per step
    efficiency: float
    fits: bool = True    # the problem fits the GPUs' memory at this rank count
    extra: dict = field(default_factory=dict)


def _interp_log2(table, x):
    xs = [math.log2(a) for a, _ in table]
    ys = [b for _, b in table]
    lx = math.log2(x)
    if lx <= xs[0]:
        return ys[0]
    if lx >= xs[-1]:
        return ys[-1]
    for i in range(1, len(xs)):
        if lx <= xs[i]:
            f = (lx - xs[i - 1]) / (xs[i] - xs[i - 1])
            return ys[i - 1] + f * (ys[i] - ys[i - 1])
    return ys[-1]


def _dims(p):
    """MPI_Dims_create(p, 3) (as balanced as possible), the largest factor on z as tessera does."""
    factors, n, f = [], p, 2
    while n > 1:
        while n % f == 0:
            factors.append(f)
            n //= f
        f += 1
    dims = [1, 1, 1]
    for f in sorted(factors, reverse=True):
        dims[dims.index(min(dims))] *= f
    return sorted(dims)


def _usable(gpu):
    return USABLE_MEMORY * gpu.memory


# ---------------------------------------------------------------------------------------------
# The solvers. Each: step(size, P) -> Point; weak(P) and strong(size, P); memory(size, P).
# ---------------------------------------------------------------------------------------------


class Solver:
    name = ""
    step_name = "step"
    size_name = ""
    weak_size = None      # problem per GPU of the weak-scaling curve
    strong_sizes = ()     # total problems of the strong-scaling curves
    max_weak_ranks = None
    # Further ways a step runs, each with curves of its own: (label suffix, step keywords, strong
    # sizes); the default way's curves come first.
    variants = ()

    def __init__(self, gpu, net):
        self.gpu, self.net = gpu, net

    def fits(self, size, p):
        return self.memory(size, p)[0] <= _usable(self.gpu)

    def min_ranks(self, size):
        for p in RANKS + [2 ** k for k in range(11, 21)]:
            if self.fits(size, p):
                return p
        return None

    def strong(self, size, p, **way):
        one = self.single(size, **way)
        pt = self.step(size, p, **way)
        pt.efficiency = one / (p * pt.seconds)
        pt.fits = self.fits(size, p)
        return pt

    def weak(self, p, **way):
        size = self.weak_total(p)
        if size is None:
            return None
        pt = self.step(size, p, **way)
        pt.efficiency = self.weak_ideal(p, **way) / pt.seconds
        pt.fits = self.fits(size, p)
        return pt

    def weak_total(self, p):
        return self.weak_size * p

    def weak_ideal(self, p, **way):
        return self.single(self.weak_size, **way)

    def curve_specs(self):
        """[(label, total size or None for the weak curve, step keywords)], the default way first."""
        specs = [(f"weak, {_size_text(self, self.weak_size)} per GPU", None, {})]
        specs += [(f"strong, {_size_text(self, size)}", size, {}) for size in self.strong_sizes]
        for suffix, way, sizes in self.variants:
            specs.append((f"weak, {_size_text(self, self.weak_size)} per GPU{suffix}", None, way))
            specs += [(f"strong, {_size_text(self, size)}{suffix}", size, way) for size in sizes]
        return specs


class NBody(Solver):
    name, step_name, size_name = "nbody", "step (one force pass)", "bodies"
    weak_size = 2 ** 18
    strong_sizes = (2 ** 20, 2 ** 24)

    def block(self, n):
        """One force kernel: n targets x n sources at the measured rate for that size."""
        if n >= 4096:
            rates = [(a, b) for a, b in self.gpu.nbody_rates]
            best, mono = 0.0, []
            for a, b in rates:  # never slower with more bodies (1M: 2225 against 2226 at 256K)
                best = max(best, b)
                mono.append((a, best))
            return n * n / _interp_log2(mono, n)
        return max(NBODY_FLOOR, self.block(4096) * n / 4096)

    def single(self, n, **way):
        return self.block(n)

    def step(self, n_total, p):
        n = math.ceil(n_total / p)
        blk = self.block(n)
        if p == 1:
            return Point(p, blk, blk, 0.0, 0.0, 0.0, 0, 1.0)
        shift = self.net.alpha(p) + 16 * n / self.net.bw(p)
        t = blk + (p - 1) * max(blk, shift)
        return Point(p, t, p * blk, (p - 1) * shift, t - p * blk, 16.0 * n * (p - 1), p - 1, 0.0)

    def weak_ideal(self, p, **way):
        return p * self.block(self.weak_size)

    def memory(self, n_total, p):
        n = math.ceil(n_total / p)
        # SolverInfo::memory (solvers/nbody/memory.hpp): 4 Vec4 on the GPU, 3 Vec4 + an id on
        # the host; plus the ring's two block buffers on the GPU when P > 1.
        return n * 64 + (n * 32 if p > 1 else 0), n * 56

    def largest_per_gpu(self):
        return int(_usable(self.gpu) / 96)


def fdtd_fused_offlink():
    """FDTD_FUSED_OFFLINK (bytes/s): what the measured fused exchange (P = 4, 1x2x2, 512^3 per
    rank, NVLink) took beyond its exchanges' latency and the link's time, per byte."""
    m = FDTD_FUSED_MEASURED
    d = _dims(m["ranks"])
    axes = [a for a in range(3) if d[a] > 1]
    nbytes = FDTD_FUSED_BYTES_PER_FACE_CELL * 512 ** 2 * len(axes)
    rest = m["exchange"] - (len(axes) + 1) * NVLINK_ALPHA - nbytes / NVLINK_BW
    return nbytes / rest


class Fdtd(Solver):
    name, step_name, size_name = "fdtd", "step", "cells"
    weak_size = 512
    strong_sizes = (1024, 2048)
    # sweep = "fused": what `fdtd.sweep = auto` runs on GPUs wherever it applies (no TFSF box, no
    # dispersive material); on MPI_Dims_create's grid (what runs beyond 4 ranks, or with an x or
    # y cut given) its exchange is not overlapped. The z cut a GPU run takes on up to 4 ranks,
    # where the fused and the blocked sweep overlap their plane exchange, is z_cut() below: a
    # table of its own, not a curve.
    variants = ((", fused sweep", {"sweep": "fused"}, (1024,)),)

    def compute(self, cells, sweep="split"):
        if sweep == "blocked":
            return cells / self.gpu.fdtd_blocked_rate
        rate = self.gpu.fdtd_fused_rate if sweep == "fused" else self.gpu.fdtd_rate
        return self.gpu.fdtd_t0 + cells / rate

    def single(self, n, sweep="split"):
        cells = n ** 3 if isinstance(n, int) else n[0] * n[1] * n[2]
        return self.compute(cells, sweep)

    def weak_total(self, p):
        d = _dims(p)
        return tuple(self.weak_size * x for x in d)

    def step(self, size, p, sweep="split", cut=None, overlap=True):
        g = (size, size, size) if isinstance(size, int) else size
        d = [1, 1, p] if cut == "z" or sweep == "blocked" else _dims(p)
        local = [g[a] / d[a] for a in range(3)]
        cells = local[0] * local[1] * local[2]
        comp = self.compute(cells, sweep)
        axes = [a for a in range(3) if d[a] > 1]
        if not axes:
            return Point(p, comp, comp, 0.0, 0.0, 0.0, 0, 1.0)
        faces = [cells / local[a] for a in axes]
        dims = {"dims": "x".join(str(x) for x in d)}
        if sweep == "blocked":
            # One exchange of 2 x 6 x k whole planes per pass of k steps; the inner z stretches
            # run while it travels, and what they do not hide (FDTD_BLOCKED_HIDDEN per step) shows.
            k = FDTD_BLOCKED_STEPS
            nbytes = fdtd_blocked_pass_bytes(round(local[0]), k)
            rate = min(FDTD_BLOCKED_PLANE_BW[2 if p == 2 else 4], self.net.bw(p))
            x = (self.net.alpha(p) + nbytes / rate) / k
            exposed = max(0.0, x - FDTD_BLOCKED_HIDDEN) if overlap else x
            return Point(p, comp + exposed, comp, x, exposed, nbytes / k, 12 // k, 0.0, extra=dims)
        if sweep == "fused" and cut == "z":
            # Eight whole planes in one group; the inner z stretches sweep while they travel.
            nbytes = FDTD_FUSED_Z_PLANES * fdtd_plane_bytes(round(local[0]))
            x = self.net.alpha(p) + nbytes / min(FDTD_FUSED_PLANE_BW, self.net.bw(p))
            t = (1 + FDTD_FUSED_Z_COST) * comp + (max(0.0, x - FDTD_FUSED_Z_HIDDEN) if overlap else x)
            return Point(p, t, comp, x, t - comp, nbytes, FDTD_FUSED_Z_PLANES, 0.0, extra=dims)
        if sweep == "fused":
            # One exchange before the sweep, nothing overlapped: E in corners mode, one phase per
            # cut axis in turn, then the tangential H of the low layers.
            nbytes = FDTD_FUSED_BYTES_PER_FACE_CELL * sum(faces)
            exchange = self.fused_exchange(p, len(axes), nbytes)
            t = (1 + FDTD_FUSED_SPLIT_COST) * comp + exchange
            return Point(p, t, comp, exchange, t - comp, nbytes, 3 * len(axes), 0.0, extra=dims)
        half_bytes = 8.0 * sum(faces)  # 2 tangential float32 components per face, one side
        half = len(axes) * self.net.alpha(p) + half_bytes / self.net.bw(p)
        t = (1 + FDTD_SPLIT_COST) * comp + 2 * max(0.0, half - comp / 2)
        return Point(p, t, comp, 2 * half, t - comp, 2 * half_bytes, 2 * len(axes), 0.0, extra=dims)

    def z_cut(self, p, sweep="fused", overlap=True, n=None):
        """Weak scaling on a z cut (fdtd.ranks = [1, 1, P]), n^3 cells per rank: the step and its
        efficiency against one rank alone with PEC faces (for the blocked sweep, one rank's
        blocked step)."""
        n = n or self.weak_size
        pt = self.step((n, n, n * p), p, sweep=sweep, cut="z", overlap=overlap)
        pt.efficiency = self.single(n, sweep) / pt.seconds
        pt.fits = self.fits((n, n, n * p), p)
        return pt

    def fused_exchange(self, p, axes, nbytes):
        """The fused step's exchange alone: axes + 1 exchanges in a row, the link's time, and the
        per-byte time the link does not explain (ASSUMED to stay the same across nodes)."""
        return (axes + 1) * self.net.alpha(p) + nbytes / self.net.bw(p) + nbytes / fdtd_fused_offlink()

    def memory(self, size, p):
        g = (size, size, size) if isinstance(size, int) else size
        cells = g[0] * g[1] * g[2] / p
        return cells * 25, cells * 1  # SolverInfo::memory: 6 float fields + a uint8 material

    def largest_per_gpu(self):
        return int(_usable(self.gpu) / 25)


class Scan(Solver):
    name, step_name, size_name = "scan", "scan", "int32 elements"
    weak_size = 2 ** 28
    strong_sizes = (2 ** 30, 2 ** 34)

    def single(self, n, **way):
        return SCAN_T0_SCAN + n / self.gpu.scan_rate

    def step(self, n_total, p):
        n = math.ceil(n_total / p)
        scan = self.single(n)
        if p == 1:
            return Point(p, scan, scan, 0.0, 0.0, 0.0, 0, 1.0)
        reduce = SCAN_T0_REDUCE + 4.0 * n / self.gpu.copy_bw
        totals = self.net.many_peers(p, 8.0 * (p - 1))  # the 8-byte totals, allgathered
        t = reduce + totals + scan
        return Point(p, t, reduce + scan, totals, t - scan, 8.0 * (p - 1), p - 1, 0.0,
                     extra={"reduce": reduce})

    def step_host(self, n_total, p):
        """The host path (taken with a host transport or a variant other than lookback): a device
        sync and a host MPI exscan (log2 P stages) instead of the device allgather of P - 1
        messages; here with lookback's rates, i.e. what lookback would reach on that path."""
        n = math.ceil(n_total / p)
        reduce = SCAN_T0_REDUCE + 4.0 * n / self.gpu.copy_bw
        exscan = SCAN_HOST_PATH - MPI_STAGE_NODE + self.net.allreduce_small(p)
        return reduce + exscan + self.single(n)

    def memory(self, n_total, p):
        n = math.ceil(n_total / p)
        return n * 8.0, n * 4.0  # SolverInfo::memory, cuda: input + output on the GPU, input on the host

    def largest_per_gpu(self):
        return int(_usable(self.gpu) / 8)


def bfs_fit():
    """W, S, X of t = W / P + S + [P > 1] (X + bitmap bytes / NVLink) from the three measured
    peer-memory searches (scale 26)."""
    v = 2.0 ** 26

    def bitmap(p):
        return BFS_BOTTOM_UP_LEVELS * v / 8 * (p - 1) / p / NVLINK_BW

    t1, t2, t4 = BFS_MEASURED_PEER[1], BFS_MEASURED_PEER[2], BFS_MEASURED_PEER[4]
    # t2 - t4 = W/4 + bitmap(2) - bitmap(4)
    w = 4 * (t2 - t4 - bitmap(2) + bitmap(4))
    s = t1 - w
    x = t4 - w / 4 - s - bitmap(4)
    return w, s, x


def bfs_scale_growth():
    """g: the work at scale s is W 2^(s - 26) g^(s - 26); g from the one-GPU search
    at scale 27 (1.15: the work per edge grows 15% from scale 26 to 27)."""
    w, s, _ = bfs_fit()
    return (BFS_MEASURED_PEER_27[1] - s) / (2 * w)


class Bfs(Solver):
    name, step_name, size_name = "bfs", "search", "Kronecker scale"
    weak_size = 26
    strong_sizes = (26, 31)

    def __init__(self, gpu, net):
        super().__init__(gpu, net)
        self.w26, self.s, self.x = bfs_fit()
        self.growth = bfs_scale_growth()

    def work(self, scale):
        """W at this scale: the edges double per scale, and the work per edge grows by growth."""
        return self.w26 * (2.0 * self.growth) ** (scale - 26)

    def single(self, scale, **way):
        return self.work(scale) + self.s

    def weak_total(self, p):
        scale = self.weak_size + int(round(math.log2(p)))
        return scale if scale <= BFS_MAX_SCALE else None

    def step(self, scale, p, path=None):
        v = 2.0 ** scale
        w = self.work(scale)
        if p == 1:
            t = w + self.s
            return Point(p, t, t, 0.0, 0.0, 0.0, 0, 1.0, extra={"gteps": 16 * v / t / 1e9})
        # Per rank and search: the frontier words of every bottom-up level to and from all others,
        # the (vertex, parent) pairs, and the level table's rows in every exchange round.
        bitmap = BFS_BOTTOM_UP_LEVELS * v / 8 * (p - 1) / p  # received (and sent: its V / 8P to P - 1)
        pairs = BFS_PAIRS_PER_VERTEX * v / p * (p - 1) / p * BFS_PAIR_BYTES
        tables = BFS_ROUNDS * (p - 1) * (p + 2) * 8.0
        comp = w / p + self.s
        path = path or ("peer" if not self.net.multi(p) else "transport")
        sent = bitmap + pairs + tables
        if path == "peer":  # one node: peer memory, the GPU running the level loop
            comm = self.x + bitmap / NVLINK_BW  # pairs are stored by the kernels (overlapped)
        else:  # the transport (nccl), the host running the level loop
            comm = BFS_HOST_LOOP + (BFS_ROUNDS - 1) * self.net.many_peers(p, 0.0)
            comm += self.net.many_peers(p, sent)
        msgs = BFS_ROUNDS * (p - 1)
        t = comp + comm
        return Point(p, t, comp, comm, comm, sent, msgs, 0.0, extra={"gteps": 16 * v / t / 1e9, "path": path})

    def memory(self, scale, p):
        v = 2.0 ** scale
        e = 16 * v
        # SolverInfo::memory (graph_memory, solvers/bfs/graph.cpp): both directions of every edge
        # as uint32 and the visited bitmap of all vertices on the GPU; int64 rows on the host.
        return 2 * e / p * 4 + v / 8, 2 * e / p * 8 + v / p * 16

    def largest_per_gpu(self):
        s = 1
        while self.fits(s + 1, 1) and s + 1 <= BFS_MAX_SCALE:
            s += 1
        return s


def spmv_ghost_rows(n, p):
    """Rows with ghost entries on the busiest rank of a 1-D row partition of the n^3 Poisson grid:
    one plane per neighbour (two neighbours from P = 3 on), all of its rows once it holds less."""
    rows = n ** 3 / p
    return min(rows, (1 if p == 2 else 2) * n * n)


def spmv_ghost_fit():
    """(fixed, per ghost row) of the distributed product's added cost on an H200, from the
    measured weak products at P = 2 and 4: t(P) = local (1 + SPMV_LOCAL_SLOWDOWN) + fixed +
    ghost rows x per_row, the exchange hidden (in one node it is: the ghost wait was 3 us)."""
    extra = {}
    for p, (n, t, _) in SPMV_MEASURED_WEAK.items():
        local = n ** 3 / p * SPMV_PER_ROW_H200
        extra[p] = (t - local * (1 + SPMV_LOCAL_SLOWDOWN), spmv_ghost_rows(n, p))
    (e2, g2), (e4, g4) = extra[2], extra[4]
    per_row = (e4 - e2) / (g4 - g2)
    return e2 - per_row * g2, per_row


class Spmv(Solver):
    name, step_name, size_name = "spmv", "CG iteration", "Poisson 7-point n^3 rows"
    weak_size = 256
    strong_sizes = (512, 1024)

    def __init__(self, gpu, net):
        super().__init__(gpu, net)
        fixed, per_row = spmv_ghost_fit()
        # The ghost product is memory-bound work like the local one: H100 / H200 as the product.
        self.ghost_fixed, self.ghost_per_row = fixed, per_row * gpu.spmv_per_row / SPMV_PER_ROW_H200

    def single(self, n, **way):
        return CG_T0 + n ** 3 * self.gpu.cg_per_row

    def weak_total(self, p):
        return self.weak_size * p ** (1.0 / 3.0)

    def weak_ideal(self, p, **way):
        return self.single(self.weak_size)

    def ghost_cost(self, n, p):
        """What a distributed product adds to the local one, with its exchange hidden: the local
        product slowed while NCCL's kernels share the GPU, a fixed cost (pack, launches, the
        ghost kernel's start), and the ghost product over the rows with ghost entries."""
        local = n ** 3 / p * self.gpu.spmv_per_row
        return SPMV_LOCAL_SLOWDOWN * local + self.ghost_fixed + self.ghost_per_row * spmv_ghost_rows(n, p)

    def exchange(self, n, p):
        """(seconds, bytes sent, messages) of the ghost exchange. Rows in lexicographic order,
        contiguous per rank: each rank sends the x entries within one plane (n^2) of its ends to
        the ranks above and below (more ranks per side when a rank holds less than a plane)."""
        rows = n ** 3 / p
        side = min(rows, n * n)
        per_side = max(1, math.ceil(n * n / rows))
        t = self.net.alpha(p) + (per_side - 1) * self.net.cluster.per_peer + 8.0 * side / self.net.bw(p)
        return t, 16.0 * side, 2 * per_side

    def product(self, n, p):
        """The distributed product alone (the weak-scaling measurements' quantity)."""
        local = n ** 3 / p * self.gpu.spmv_per_row
        if p == 1:
            return local
        ghosts, _, _ = self.exchange(n, p)
        return local + self.ghost_cost(n, p) + max(0.0, ghosts - local)

    def step(self, n, p, **way):
        rows = n ** 3 / p
        it = CG_T0 + rows * self.gpu.cg_per_row
        if p == 1:
            return Point(p, it, it, 0.0, 0.0, 0.0, 0, 1.0)
        local = rows * self.gpu.spmv_per_row
        ghosts, sent, msgs = self.exchange(n, p)
        reduce = 2 * self.net.allreduce_small(p)
        t = it + self.ghost_cost(n, p) + max(0.0, ghosts - local) + reduce
        return Point(p, t, it, ghosts + reduce, t - it, sent, msgs + 2 * math.ceil(math.log2(p)), 0.0)

    def memory(self, n, p):
        rows = n ** 3 / p
        # GPU: the hybrid kernel's ELL (width 7: 8-byte value + 4-byte column per slot; 27.6 GB
        # for 2.29e9 slots measured at 440^3 27-point) and 5 vectors (x, r, p, q, ghosts).
        # Host: SolverInfo::memory (matrix_memory, solvers/spmv/spmv_solver.cpp).
        nnz = 7 * rows
        return 12.0 * nnz + 40.0 * rows, nnz * 28.0 + rows * 32.0

    def largest_per_gpu(self):
        return int((_usable(self.gpu) / 124.0) ** (1.0 / 3.0))


SOLVERS = [NBody, Fdtd, Scan, Bfs, Spmv]


def make(gpu="h100", cluster=None):
    net = Net(cluster or Cluster())
    return [cls(GPUS[gpu], net) for cls in SOLVERS]


def curves(solver):
    """{label: [(P, efficiency, fits)]}: the weak curve and one strong curve per total size, for
    each way the solver's step runs (curve_specs)."""
    out = {}
    for label, size, way in solver.curve_specs():
        if size is None:
            weak = [(p, solver.weak(p, **way)) for p in RANKS]
            out[label] = [(p, pt.efficiency, pt.fits) for p, pt in weak if pt]
        else:
            out[label] = [(p, solver.strong(size, p, **way).efficiency, solver.fits(size, p)) for p in RANKS]
    return out


def stops_paying(points):
    """The largest P of the curve (among those that fit) with efficiency >= PAYING, and whether
    the curve ever drops below it."""
    ok = [p for p, e, fits in points if fits and e >= PAYING]
    below = any(fits and e < PAYING for _, e, fits in points)
    return (max(ok) if ok else None), below


# ---------------------------------------------------------------------------------------------
# Printing and plotting.
# ---------------------------------------------------------------------------------------------


def _size_text(solver, size):
    if solver.name == "nbody":
        return _count(size) + " bodies"
    if solver.name == "fdtd":
        return f"{size}^3 cells"
    if solver.name == "scan":
        return f"2^{int(math.log2(size))} int32"
    if solver.name == "bfs":
        return f"scale {size}"
    return f"{size}^3 rows"


def _count(n):
    for unit, div in (("G", 2 ** 30), ("M", 2 ** 20), ("K", 2 ** 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return f"{n:.3g}"


def _bytes(b):
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= div:
            return f"{b / div:.3g} {unit}"
    return f"{b:.0f} B"


def _ms(s):
    return f"{s * 1e3:.4g}" if s >= 1e-6 or s == 0 else f"{s * 1e3:.2g}"


def _pct(e):
    return f"{100 * e:.1f}%"


def table(solver, label, rows):
    print(f"\n{solver.name}, {label}:\n")
    bfs = solver.name == "bfs"
    head = "| P | nodes | t [ms] | compute [ms] | comm [ms] | exposed [ms] | sent/rank | msgs/rank |"
    sep = "|---:|---:|---:|---:|---:|---:|---:|---:|"
    if bfs:
        head += " GTEPS |"
        sep += "---:|"
    print(head + " efficiency |")
    print(sep + "---:|")
    for pt in rows:
        eff = _pct(pt.efficiency) + ("" if pt.fits else " (no fit)")
        line = (f"| {pt.ranks} | {solver.net.nodes(pt.ranks)} | {_ms(pt.seconds)} | {_ms(pt.compute)} | {_ms(pt.comm)} | "
                f"{_ms(pt.exposed)} | {_bytes(pt.sent)} | {pt.messages} |")
        if bfs:
            line += f" {pt.extra['gteps']:.0f} |"
        print(line + f" {eff} |")


def z_cut_table(solver):
    """The fused and the blocked sweep on a z cut (what a GPU run takes on up to 4 ranks), weak,
    with their plane exchange overlapped (the default) and not."""
    n = solver.weak_size
    print(f"\nfdtd on a z cut (fdtd.ranks = [1, 1, P], a GPU run's default on up to 4 ranks), weak, {n}^3 cells per "
          f"GPU; efficiency against one rank alone with PEC faces, the same sweep:\n")
    print("| sweep | P | nodes | exchange [ms per step] | t [ms] | efficiency | not overlapped: t [ms] | efficiency |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for sweep in ("fused", "blocked"):
        label = sweep if sweep == "fused" else f"blocked k={FDTD_BLOCKED_STEPS}"
        for p in (1, 2, 4, 8):
            on, off = solver.z_cut(p, sweep), solver.z_cut(p, sweep, overlap=False)
            print(f"| {label} | {p} | {solver.net.nodes(p)} | {_ms(on.comm)} | {_ms(on.seconds)} | "
                  f"{_pct(on.efficiency)} | {_ms(off.seconds)} | {_pct(off.efficiency)} |")
    print(f"\n(from P = {2 * solver.net.cluster.gpus_per_node} on, the same per rank: a rank at a node's edge sends "
          f"across nodes, and the step waits for it)")


def memory_lines(gpu_key):
    lines = []
    for s in make(gpu_key):
        largest = s.largest_per_gpu()
        if s.name == "nbody":
            dev, host = s.memory(2 * largest, 2)
            t = s.single(largest)
            lines.append(f"nbody: {largest / 1e6:.0f} M bodies per GPU ({_bytes(dev)} on the GPU with the ring's buffers, "
                         f"{_bytes(host)} host); one force pass of that many on one GPU: {t:.3g} s")
        elif s.name == "fdtd":
            side = int(largest ** (1 / 3))
            lines.append(f"fdtd: {largest / 1e9:.2f} G cells per GPU (a {side}^3 cube; {_bytes(largest * 1.0)} host)")
        elif s.name == "scan":
            dev, host = s.memory(largest, 1)
            lines.append(f"scan: {largest / 1e9:.2f} G int32 elements per GPU (2^{int(math.log2(largest))} fits; "
                         f"{_bytes(host)} host)")
        elif s.name == "bfs":
            dev, host = s.memory(largest, 1)
            need = next(p for p in range(1, 1 << 20) if s.fits(BFS_MAX_SCALE, p))
            dev31, host31 = s.memory(BFS_MAX_SCALE, need)
            lines.append(f"bfs: scale {largest} on one GPU ({_bytes(dev)} GPU, {_bytes(host)} host); scale "
                         f"{BFS_MAX_SCALE}, the largest the cuda backend takes, needs P >= {need} ({_bytes(dev31)} GPU, "
                         f"{_bytes(host31)} host per rank)")
        else:
            dev, host = s.memory(largest, 1)
            lines.append(f"spmv: a {largest}^3 Poisson grid per GPU ({largest ** 3 / 1e6:.0f} M rows; {_bytes(dev)} GPU, "
                         f"{_bytes(host)} host while the matrix is built)")
    return lines


def validation(cluster=None):
    """(solver, case, measured, model) at the rank counts measured in one node (H200). Cases
    marked "fitted" are the calibration itself; the others are out of sample."""
    h200 = {s.name: s for s in make("h200", cluster)}
    out = []
    nb = h200["nbody"]
    # nccl rows of 66848b4 and ba0ff1f; issue 32's table, 22ea52c
    for p, measured, src in ((2, 1.001, "66848b4"), (4, 0.991, "ba0ff1f"), (4, 0.993, "22ea52c, issue 32")):
        out.append(("nbody", f"ring 1M bodies, nccl, P = {p}, efficiency ({src})", measured,
                    nb.strong(2 ** 20, p).efficiency))
    fd = h200["fdtd"]
    for p, measured, src, cut in FDTD_MEASURED_WEAK:
        model = fd.z_cut(p, "split").efficiency if cut == "z" else fd.weak(p).efficiency
        grid = "z cut" if cut == "z" else "x".join(str(x) for x in _dims(p))
        out.append(("fdtd", f"weak 512^3 per GPU, split, {grid}, nccl, P = {p}, efficiency ({src})", measured, model))
    m = FDTD_FUSED_MEASURED
    p = m["ranks"]
    fused = fd.weak(p, sweep="fused")
    out.append(("fdtd", f"weak 512^3 per GPU, fused, 1x2x2, nccl, P = {p}, efficiency (6523e31, fitted)",
                m["alone"] / m["seconds"], fused.efficiency))
    out.append(("fdtd", "the same, its exchange alone, ms (6523e31, fitted)", m["exchange"] * 1e3, fused.comm * 1e3))
    for measured, _, src in FDTD_FUSED_CHECKS:
        out.append(("fdtd", f"weak 512^3 per GPU, fused, 1x2x2, nccl, P = {p}, efficiency ({src})", measured,
                    fused.efficiency))
    m = FDTD_FUSED_Z_MEASURED
    p = m["ranks"]
    out.append(("fdtd", f"weak 512^3 per GPU, fused, z cut, overlapped, nccl, P = {p}, efficiency (6523e31, fitted)",
                m["efficiency"][0], fd.z_cut(p).efficiency))
    out.append(("fdtd", "the same without the overlap, efficiency (6523e31, fitted)", m["efficiency"][1],
                fd.z_cut(p, overlap=False).efficiency))
    out.append(("fdtd", "the same, its exchange alone, ms (6523e31, fitted)", m["exchange"] * 1e3,
                fd.z_cut(p).comm * 1e3))
    for p, overlap, measured, src in FDTD_FUSED_Z_CHECKS:
        how = "overlapped" if overlap else "not overlapped"
        out.append(("fdtd", f"weak 512^3 per GPU, fused, z cut, {how}, nccl, P = {p}, efficiency ({src})", measured,
                    fd.z_cut(p, overlap=overlap).efficiency))
    m = FDTD_BLOCKED_MEASURED
    p = m["ranks"]
    out.append(("fdtd", f"weak 512^3 per GPU, blocked k=4, z cut, overlapped, nccl, P = {p}, of one PEC rank "
                "(6523e31, fitted)", m["alone"] / m["on"], fd.z_cut(p, "blocked").efficiency))
    out.append(("fdtd", "the same, its exchange alone, ms per step (6523e31, fitted)", m["exchange"] * 1e3,
                fd.z_cut(p, "blocked").comm * 1e3))
    m = FDTD_BLOCKED_MEASURED_P2
    out.append(("fdtd", "the same, P = 2, its exchange alone, ms per step (1bffe21, fitted)", m["exchange"] * 1e3,
                fd.z_cut(2, "blocked").comm * 1e3))
    for p, overlap, measured, src in FDTD_BLOCKED_CHECKS:
        how = "overlapped" if overlap else "not overlapped"
        out.append(("fdtd", f"weak 512^3 per GPU, blocked k=4, z cut, {how}, nccl, P = {p}, of one PEC rank ({src})",
                    measured, fd.z_cut(p, "blocked", overlap=overlap).efficiency))
    sc = h200["scan"]
    for p, seconds, src in SCAN_MEASURED:
        out.append(("scan", f"2^28 int32 per GPU, totals on nccl, P = {p}, ms ({src})", seconds * 1e3,
                    sc.step(2 ** 28 * p, p).seconds * 1e3))
    one = sc.single(2 ** 28)
    for p, measured, src in SCAN_MEASURED_HOST_PATH:
        out.append(("scan", f"2^28 int32 per GPU, host exscan, P = {p}, efficiency ({src})", measured,
                    one / sc.step_host(2 ** 28 * p, p)))
    bf = h200["bfs"]
    for label, table in (("6523e31, fitted", BFS_MEASURED_PEER), ("eeece20", BFS_MEASURED_PEER_EEECE20),
                         ("3a0793e, medians", BFS_MEASURED_PEER_3A0793E)):
        for p, t in table.items():
            if p > 1:
                out.append(("bfs", f"scale 26, peer, P = {p}, speed-up ({label})", table[1] / t,
                            bf.step(26, 1).seconds / bf.step(26, p).seconds))
    out.append(("bfs", "scale 26, peer, P = 2, speed-up (4f9f897)", BFS_MEASURED_P2_4F9F897,
                bf.step(26, 1).seconds / bf.step(26, 2).seconds))
    for p, t in BFS_MEASURED_PEER_27.items():
        label = "1bffe21, fitted" if p == 1 else "1bffe21"
        out.append(("bfs", f"scale 27, peer, P = {p}, mean search, ms ({label})", t * 1e3,
                    bf.step(27, p).seconds * 1e3))
    out.append(("bfs", "weak: scale 27 on 2 GPUs against scale 26 on 1, efficiency (1bffe21, 6523e31)",
                BFS_MEASURED_PEER[1] / BFS_MEASURED_PEER_27[2], bf.weak(2).efficiency))
    host1 = bf.step(26, 1).seconds + BFS_HOST_LOOP
    for p, measured in BFS_MEASURED_TRANSPORT_SPEEDUP.items():
        out.append(("bfs", f"scale 26, transport, P = {p}, speed-up (2c9c42b)", measured,
                    host1 / bf.step(26, p, path="transport").seconds))
    sp = h200["spmv"]
    for p, (n, t, src) in SPMV_MEASURED_WEAK.items():
        out.append(("spmv", f"product, weak, n = {n}, P = {p}, ms ({src}, fitted)", t * 1e3, sp.product(n, p) * 1e3))
    out.append(("spmv", "CG iteration, 256^3, P = 1, ms (1bffe21, fitted)", 0.8636, sp.step(256, 1).seconds * 1e3))
    for p, (n, t, src) in CG_MEASURED_WEAK.items():
        out.append(("spmv", f"CG iteration, weak, n = {n}, P = {p}, ms ({src})", t * 1e3, sp.step(n, p).seconds * 1e3))
    return out


def sensitivity():
    """The headline P (strong, first size; weak) under other cluster assumptions."""
    variants = [("as assumed", Cluster()), ("network latency 5 us", Cluster(alpha_net=5e-6)),
                ("10 us per exchange (measured: 19)", Cluster(exchange_alpha=10e-6)),
                ("2 us per peer", Cluster(per_peer=2e-6)), ("IB 22.5 GB/s per GPU (2 GPUs per NIC)", Cluster(ib_bw=22.5e9)),
                ("8 GPUs per node", Cluster(gpus_per_node=8))]
    rows = []
    for label, c in variants:
        cells = []
        for s in make("h100", c):
            cv = curves(s)
            keys = list(cv)
            w = stops_paying(cv[keys[0]])
            st = stops_paying(cv[keys[1]])
            cells.append(f"{_paying_text(*w)} / {_paying_text(*st)}")
        rows.append((label, cells))
    return rows


def _paying_text(p, below):
    if p is None:
        return "never"
    return f"{p}" if below else f">= {p}"


def headline(gpu_key, cluster=None):
    rows = []
    for s in make(gpu_key, cluster):
        cv = curves(s)
        rows.append((s, [(label, stops_paying(points)) for label, points in cv.items()]))
    return rows


def check_curves():
    """Efficiencies within (0, 1]; strong curves non-increasing in P (both GPUs, the sensitivity
    variants too). Returns the number of curves checked; raises AssertionError otherwise."""
    count = 0
    clusters = [Cluster(), Cluster(alpha_net=5e-6), Cluster(exchange_alpha=10e-6), Cluster(per_peer=2e-6),
                Cluster(ib_bw=22.5e9), Cluster(gpus_per_node=8)]
    for c in clusters:
        for gpu in GPUS:
            for s in make(gpu, c):
                for label, points in curves(s).items():
                    count += 1
                    for p, e, _ in points:
                        assert 0 < e <= 1 + 1e-12, f"{gpu} {s.name} {label}: efficiency {e} at P = {p}"
                    if label.startswith("strong"):
                        for (p0, e0, _), (p1, e1, _) in zip(points, points[1:]):
                            assert e1 <= e0 + 1e-12, f"{gpu} {s.name} {label}: {e0} at P = {p0} < {e1} at P = {p1}"
    return count


def plot(path, gpu_key, cluster=None):
    from .h5files import pyplot, save

    plt = pyplot()
    solvers = make(gpu_key, cluster)
    fig, grid = plt.subplots(2, 3, figsize=(13, 7.5))
    axes = list(grid.flat)
    for ax, s in zip(axes, solvers):
        for label, points in curves(s).items():
            ps = [p for p, _, _ in points]
            es = [e for _, e, _ in points]
            style = "-" if label.startswith("weak") else "--"
            if "fused" in label:
                style = "-." if label.startswith("weak") else ":"
            line, = ax.plot(ps, es, style, marker="o", markersize=3, label=label)
            fit = [(p, e) for p, e, f in points if not f]
            if fit:
                ax.plot(*zip(*fit), "x", color=line.get_color(), markersize=6)
        ax.set_xscale("log", base=2)
        ax.set_xticks(RANKS[::2])
        ax.set_xticklabels([str(p) for p in RANKS[::2]])
        ax.axhline(PAYING, color="gray", ls=":", lw=0.8)
        ax.axvspan(1, s.net.cluster.gpus_per_node, color="0.92", zorder=0)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("GPUs (P)")
        ax.set_title(f"{s.name}: efficiency per {s.step_name.split(' (')[0]}", fontsize=9)
        ax.legend(fontsize=6, loc="lower left")
        ax.grid(True, alpha=0.3)
        ax.set_ylabel("parallel efficiency (model)")
    c = solvers[0].net.cluster
    notes = [f"tessera scaling model ({GPUS[gpu_key].name})", "",
             f"{c.gpus_per_node} GPUs per node, NVLink (measured)", f"IB {c.ib_bw / 1e9:.1f} GB/s per GPU (assumed)",
             f"+{c.alpha_net * 1e6:.1f} us per exchange across nodes", f"{c.per_peer * 1e6:.1f} us per further peer", "",
             "solid: weak scaling (problem per GPU)", "dashed: strong scaling (total problem)",
             "fdtd dash-dot / dotted: the fused sweep",
             "x: does not fit the GPUs' memory", "shaded: one node (calibrated range)",
             f"dotted: {PAYING:.0%}, where more GPUs stop paying", "", "docs/scaling.md"]
    axes[-1].axis("off")
    axes[-1].text(0.02, 0.98, "\n".join(notes), va="top", fontsize=9, family="monospace")
    save(fig, path)


def run(args):
    cluster = Cluster(gpus_per_node=args.gpus_per_node, ib_bw=args.ib_gbps * 1e9, alpha_net=args.alpha_net_us * 1e-6,
                      per_peer=args.peer_us * 1e-6)
    default = cluster == Cluster()
    gpu = GPUS[args.gpu]
    c = cluster
    print(f"tessera scaling model (tools/tessera_post/scaling_model.py): {gpu.name}, {c.gpus_per_node} GPUs per node "
          f"(NVLink {NVLINK_BW / 1e9:.0f} GB/s, {NVLINK_ALPHA * 1e6:.0f} us per exchange, measured), "
          f"IB {c.ib_bw / 1e9:.1f} GB/s per GPU, +{c.alpha_net * 1e6:.1f} us per exchange across nodes, "
          f"{c.per_peer * 1e6:.1f} us per further peer, {c.mpi_stage_net * 1e6:.1f} us per MPI stage between nodes")
    solvers = make(args.gpu, cluster)
    w, bs, bx = bfs_fit()
    print(f"\n### Calibrated constants ({gpu.name} where they differ)\n")
    print(f"- nbody: G interactions/s by bodies per rank {', '.join(f'{_count(n)} {r / 1e9:.0f}' for n, r in gpu.nbody_rates)}")
    print(f"- fdtd: t = {gpu.fdtd_t0 * 1e6:.1f} us + cells / {gpu.fdtd_rate / 1e9:.1f} G/s; decomposed step "
          f"+{100 * FDTD_SPLIT_COST:.1f}%; fused sweep cells / {gpu.fdtd_fused_rate / 1e9:.1f} G/s, decomposed "
          f"+{100 * FDTD_FUSED_SPLIT_COST:.1f}% + its exchange: (axes + 1) alpha + 32 B per face cell / link "
          f"+ the same / {fdtd_fused_offlink() / 1e9:.0f} GB/s")
    print(f"- fdtd on a z cut: fused +{100 * FDTD_FUSED_Z_COST:.1f}% + max(0, alpha + 8 planes / "
          f"{FDTD_FUSED_PLANE_BW / 1e9:.0f} GB/s - {FDTD_FUSED_Z_HIDDEN * 1e3:.3f} ms); "
          f"blocked (k = {FDTD_BLOCKED_STEPS}) "
          f"cells / {gpu.fdtd_blocked_rate / 1e9:.1f} G/s + max(0, (alpha + 48 planes / B) / {FDTD_BLOCKED_STEPS} - "
          f"{FDTD_BLOCKED_HIDDEN * 1e3:.3f} ms), B = {FDTD_BLOCKED_PLANE_BW[2] / 1e9:.0f} (P = 2) / "
          f"{FDTD_BLOCKED_PLANE_BW[4] / 1e9:.0f} GB/s in a node; without the overlap the whole exchange")
    print(f"- scan: scan pass {SCAN_T0_SCAN * 1e6:.0f} us + n / {gpu.scan_rate / 1e9:.1f} G/s, reduce pass "
          f"{SCAN_T0_REDUCE * 1e6:.0f} us + 4 n / {gpu.copy_bw / 1e9:.0f} GB/s")
    print(f"- bfs (scale 26): W = {w * 1e3:.3f} ms, S = {bs * 1e3:.3f} ms, X = {bx * 1e3:.3f} ms, work per edge "
          f"x {bfs_scale_growth():.3f} per scale, host loop "
          f"{BFS_HOST_LOOP * 1e3:.2f} ms, {BFS_ROUNDS} exchange rounds, {BFS_BOTTOM_UP_LEVELS} bottom-up levels, "
          f"{BFS_PAIRS_PER_VERTEX} pairs per vertex")
    sp = next(s for s in solvers if s.name == "spmv")
    print(f"- spmv: CG iteration {CG_T0 * 1e6:.0f} us + rows x {gpu.cg_per_row * 1e12:.1f} ps, the product "
          f"rows x {gpu.spmv_per_row * 1e12:.1f} ps; on P > 1 + {100 * SPMV_LOCAL_SLOWDOWN:.1f}% of the local product "
          f"+ {sp.ghost_fixed * 1e6:.1f} us + {sp.ghost_per_row * 1e12:.0f} ps per row with ghost entries")
    if not args.summary:
        for s in solvers:
            print(f"\n### {s.name}: time per {s.step_name}")
            print("\n| efficiency | " + " | ".join(f"P={p}" for p in RANKS) + " |")
            print("|---|" + "---:|" * len(RANKS))
            for label, points in curves(s).items():
                by_p = {p: (e, fits) for p, e, fits in points}
                cells = [("-" if p not in by_p else f"{100 * by_p[p][0]:.0f}%" + ("" if by_p[p][1] else "*"))
                         for p in RANKS]
                print(f"| {label} | " + " | ".join(cells) + " |")
            print("\n(*: does not fit the GPUs' memory at that P; -: beyond the solver's limits)")
            for label, size, way in s.curve_specs():
                text = _size_text(s, s.weak_size if size is None else size)
                suffix = label[label.index(text) + len(text):].replace(" per GPU", "", 1)
                if size is None:
                    weak = [s.weak(p, **way) for p in RANKS]
                    table(s, f"weak scaling, {text} per GPU{suffix}", [pt for pt in weak if pt])
                    if any(pt is None for pt in weak):
                        print(f"\n(beyond P = {max(p for p, pt in zip(RANKS, weak) if pt)}: scale > {BFS_MAX_SCALE}, "
                              f"which the cuda backend refuses)")
                else:
                    table(s, f"strong scaling, {text} in all{suffix}", [s.strong(size, p, **way) for p in RANKS])
            if s.name == "fdtd":
                z_cut_table(s)
            if s.name == "scan":
                host = ", ".join(f"P = {p}: {_pct(s.single(s.weak_size) / s.step_host(s.weak_size * p, p))}"
                                 for p in (2, 64, 256, 1024))
                print(f"\nscan, weak, if lookback took the host path (MPI exscan; today only the other variants "
                      f"do): {host}")
    print(f"\n### Stops paying: the largest P with efficiency >= {PAYING:.0%} (among rank counts whose memory fits)\n")
    keys = [k for k in GPUS]
    print("| solver | curve | " + " | ".join(GPUS[k].name for k in keys) + " |")
    print("|---|---|" + "---:|" * len(keys))
    per_gpu = {k: headline(k, cluster) for k in keys}
    for i, (s, items) in enumerate(per_gpu[keys[0]]):
        for j, (label, _) in enumerate(items):
            cells = []
            for k in keys:
                s_k, items_k = per_gpu[k][i]
                p, below = items_k[j][1]
                size = s_k.curve_specs()[j][1]
                lo = f"{s_k.min_ranks(size)}.." if size is not None and s_k.min_ranks(size) > 1 else ""
                cells.append(f"{lo}{_paying_text(p, below)}" if p else "never")
            print(f"| {s.name} | {label} | " + " | ".join(cells) + " |")
    print("\n(\"a..b\": the problem needs a GPUs for memory; \">= 1024\": still paying at 1024)")
    print("\n### Largest problem per GPU (memory model, 90% of the nominal memory)\n")
    for k in keys:
        print(f"{GPUS[k].name}:\n")
        for line in memory_lines(k):
            print(f"- {line}")
        print()
    if default and not args.summary:
        print("\n### Model against the measurements in one node (H200)\n")
        print("| solver | case | measured | model |")
        print("|---|---|---:|---:|")
        for solver, case, measured, model in validation():
            print(f"| {solver} | {case} | {measured:.3f} | {model:.3f} |")
        print(f"\n### Sensitivity ({GPUS['h100'].name}): stops paying, weak / first strong curve\n")
        names = [s.name for s in make("h100")]
        print("| assumption | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        for label, cells in sensitivity():
            print(f"| {label} | " + " | ".join(cells) + " |")
    if args.check:
        n = check_curves()
        print(f"\ncheck: {n} curves, efficiencies in (0, 1], strong scaling non-increasing in P: OK")
    if args.output:
        plot(args.output, args.gpu, cluster)
    return 0


def register(sub):
    p = sub.add_parser("scaling-model",
                       help="the scaling model of docs/scaling.md: tables per solver, efficiency curves (PNG)")
    p.add_argument("--gpu", choices=sorted(GPUS), default="h100", help="the GPU of the tables and the plot")
    p.add_argument("-o", "--output", metavar="PNG", default="scaling_model.png", help="the efficiency curves")
    p.add_argument("--summary", action="store_true", help="only the headline and memory tables")
    p.add_argument("--check", action="store_true",
                   help="check that every efficiency is in (0, 1] and strong scaling never rises with P")
    d = Cluster()
    p.add_argument("--gpus-per-node", type=int, default=d.gpus_per_node)
    p.add_argument("--ib-gbps", type=float, default=d.ib_bw / 1e9, help="InfiniBand GB/s per GPU and direction")
    p.add_argument("--alpha-net-us", type=float, default=d.alpha_net * 1e6,
                   help="microseconds an exchange across nodes adds")
    p.add_argument("--peer-us", type=float, default=d.per_peer * 1e6,
                   help="microseconds per further peer of an all-peers exchange across nodes")
    p.set_defaults(run=run)
