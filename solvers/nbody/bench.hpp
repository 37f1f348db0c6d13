#pragma once
// `tessera bench nbody`: interactions per second of the force kernels (tessera's tiled kernel
// beside the seeds' baselines) as a fraction of the FP32 issue-rate limit, a whole step through
// a CUDA graph, double precision, and the ring on all ranks through each transport with its
// parallel efficiency. On a machine without a GPU: the OpenMP kernel and the host ring.
// With TESSERA_NBODY_KERNELS set (a list of shapes, see bench.cpp), only a comparison of those
// shapes at TESSERA_NBODY_SIZES (default 4096, 256K, 1M).
#include "comm/context.hpp"
#include "solvers/bench.hpp"

namespace tessera::nbody {

BenchReport run_nbody_bench(comm::Context& ctx, const BenchOptions& options);

// The FP32 issue-rate bound of an all-pairs kernel, in interactions/s: every SM issues one
// warp instruction per clock on each of its 4 schedulers (128 lanes), and an interaction
// takes 13 instructions (3 FADD, 3 FFMA, MUFU.RSQ, 3 FMUL, 3 FFMA). The equal-mass loop needs
// 12 (one FMUL fewer); the benchmark keeps the general count, so rows of both compare.
double fp32_issue_limit(int sm_count, double clock_hz);
inline constexpr int kInstructionsPerInteraction = 13;

}  // namespace tessera::nbody
