// The Graph500 checks on the device (backend.hpp: check) and their launchers (launch.cuh).
#include "core/cuda_check.hpp"
#include "solvers/bfs/cuda/launch.cuh"
#include "solvers/bfs/validate_rules.hpp"

namespace tessera::bfs::gpu {
namespace {

__global__ void first_ancestors(const std::int64_t* parent, std::int64_t n, std::int64_t root, std::int64_t* anc) {
  for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; v < n;
       v += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    anc[v] = first_ancestor(parent, n, v, root);
}

__global__ void __launch_bounds__(kBlock) jump(const std::int64_t* anc, std::int64_t n, std::int64_t* next,
                                               Counters* c) {
  ull changed = 0;
  for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x; v < n;
       v += static_cast<std::int64_t>(gridDim.x) * kBlock) {
    const std::int64_t a = anc[v];
    const std::int64_t b = a >= 0 ? anc[a] : a;
    next[v] = b;
    changed += b != a ? 1 : 0;
  }
  add_counts(&c->changed, changed, &c->changed, 0);
}

__device__ __forceinline__ void flag(Counters* c, int check, ull amount, std::int64_t g) {
  atomicAdd(&c->check_count[check], amount);
  atomicMin(&c->check_first[check], static_cast<ull>(g));
}

// Checks 1, 2 and 5, a thread per owned vertex.
__global__ void check_vertices(View d, std::int64_t root, const std::int64_t* anc) {
  const TreeView t{d.parent, d.level, d.n};
  for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; v < d.nl;
       v += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t g = d.begin + v;
    if (tree_violation(t, g, root, anc[g])) flag(d.counters, kTree, 1, g);
    if (level_violation(t, g, root)) flag(d.counters, kLevels, 1, g);
    if (needs_parent_edge(t, g, root)) {
      const auto p = static_cast<std::uint32_t>(d.parent[g]);
      std::int64_t lo = d.offsets[v], hi = d.offsets[v + 1];
      while (lo < hi) {
        const std::int64_t mid = (lo + hi) >> 1;
        if (d.columns[mid] < p) lo = mid + 1;
        else hi = mid;
      }
      if (lo == d.offsets[v + 1] || d.columns[lo] != p) flag(d.counters, kParentEdges, 1, g);
    }
  }
}

// Checks 3 and 4, a warp per owned vertex (rows are long and uneven).
__global__ void __launch_bounds__(kBlock) check_edges(View d) {
  const TreeView t{d.parent, d.level, d.n};
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (kBlock / 32);
  for (std::int64_t v = (blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x) >> 5; v < d.nl; v += warps) {
    const std::int64_t g = d.begin + v;
    ull bad_levels = 0, bad_span = 0;
    for (std::int64_t j = d.offsets[v] + lane; j < d.offsets[v + 1]; j += 32) {
      const std::int64_t w = d.columns[j];
      bad_levels += edge_level_violation(t, g, w) ? 1 : 0;
      bad_span += spanning_violation(t, g, w) ? 1 : 0;
    }
    for (int o = 16; o > 0; o >>= 1) {
      bad_levels += __shfl_down_sync(kFull, bad_levels, o);
      bad_span += __shfl_down_sync(kFull, bad_span, o);
    }
    if (lane == 0) {
      if (bad_levels) flag(d.counters, kEdgeLevels, bad_levels, g);
      if (bad_span) flag(d.counters, kSpanning, bad_span, g);
    }
  }
}

}  // namespace

void launch_first_ancestors(const Launch& l, const std::int64_t* parent, std::int64_t n, std::int64_t root,
                            std::int64_t* anc) {
  first_ancestors<<<l.grid, l.block, l.shared, l.stream>>>(parent, n, root, anc);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_jump(const Launch& l, const std::int64_t* anc, std::int64_t n, std::int64_t* next, Counters* c) {
  jump<<<l.grid, l.block, l.shared, l.stream>>>(anc, n, next, c);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_check_vertices(const Launch& l, const View& d, std::int64_t root, const std::int64_t* anc) {
  check_vertices<<<l.grid, l.block, l.shared, l.stream>>>(d, root, anc);
  TESSERA_CUDA_CHECK_LAUNCH();
}

void launch_check_edges(const Launch& l, const View& d) {
  check_edges<<<l.grid, l.block, l.shared, l.stream>>>(d);
  TESSERA_CUDA_CHECK_LAUNCH();
}

}  // namespace tessera::bfs::gpu
