// The cuda engine's one-pass sweeps (cuda_engine.hpp): the fused sweep (H and E of one step
// per pass, fused_sweep.cu) and the blocked sweep (several steps per pass, blocked_sweep.cu),
// their set-up and their launches. Both read one copy of the fields and write the other.
#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/cuda_check.hpp"
#include "core/env.hpp"
#include "solvers/fdtd/cuda/cuda_engine.hpp"

namespace tessera::fdtd {
namespace {

// A slab's box (local cells), axis and profile, as the sweeps' kernels take them (FusedSlab,
// BlockedSlab).
template <class KernelSlab>
void describe_slab(KernelSlab& f, const CpmlSlab& slab, const CpmlCoeffs* profile) {
  f.axis = slab.axis;
  for (int a = 0; a < 3; ++a) {
    f.lo[a] = int(slab.local.lo[a]);
    f.hi[a] = int(slab.local.hi[a]);
  }
  f.profile = profile;
}

}  // namespace

bool CudaEngine::enable_fused(std::string& why) {
  if (spare_[0]) return true;
  const std::size_t n = array_elements();
  try {
    for (int c = 0; c < kComponents; ++c) {
      spare_store_[c] = DeviceBuffer<float>(n);
      // Zero ghosts: the sweep never writes them, so at a wall they stay the PEC's zeros.
      TESSERA_CUDA_CHECK(cudaMemsetAsync(spare_store_[c].data(), 0, spare_store_[c].bytes(), compute_));
      spare_[c] = spare_store_[c].data() + lead_;
    }
  } catch (const CudaError& e) {
    for (auto& s : spare_store_) s = DeviceBuffer<float>();
    for (float*& p : spare_) p = nullptr;
    (void)cudaGetLastError();  // a failed cudaMalloc leaves a (non-sticky) error behind
    why = std::string("no room on the GPU for a second copy of the fields (") + e.what() + ")";
    return false;
  }
  // TESSERA_FDTD_FUSED_TILE ("8" or "16", then optionally the z stretches: "16,1") tunes the
  // sweep's shape for benchmarks; the default is the measured best (docs/performance.md).
  int tile_y = 8, stretches = 0;
  if (const auto tuning = env::get_integers("TESSERA_FDTD_FUSED_TILE")) {
    if (tuning->size() >= 1) tile_y = static_cast<int>((*tuning)[0]);
    if (tuning->size() >= 2) stretches = static_cast<int>((*tuning)[1]);
  }
  fused_shape_ = fused_shape(domain_.n, tile_y, stretches);
  return true;
}

void CudaEngine::update_fused(SweepPart part) {
  if (!spare_[0]) throw std::logic_error("CudaEngine::update_fused without enable_fused");
  const FieldPtrs in{{base_[kEx], base_[kEy], base_[kEz]}, {base_[kHx], base_[kHy], base_[kHz]}};
  const FieldPtrs out{{spare_[kEx], spare_[kEy], spare_[kEz]}, {spare_[kHx], spare_[kHy], spare_[kHz]}};
  // A periodic axis this rank spans alone wraps within the sweep; on a side with another
  // rank the sweep recomputes the new H of the low ghost layer instead of reading it.
  int recompute = 0, wrap = 0;
  for (int a = 0; a < 3; ++a) {
    wrap |= domain_.wraps_alone(a) ? 1 << a : 0;
    recompute |= domain_.remote(a, 0) ? 1 << a : 0;
  }
  FusedCpml cpml;
  no_slab_box(cpml.inner_lo, cpml.inner_hi);
  if (fused_cpml_)
    for (SlabState& st : slabs_) {
      if (st.slab.local.empty()) continue;
      FusedSlab& f = cpml.slab[cpml.count++];
      describe_slab(f, st.slab, st.profile.data());
      f.e_psi[0] = st.psi[0].data();
      f.e_psi[1] = st.psi[1].data();
      f.h_in[0] = st.psi[2].data();
      f.h_in[1] = st.psi[3].data();
      f.h_out[0] = st.h_psi_spare[0].data();
      f.h_out[1] = st.h_psi_spare[1].data();
    }
  launch_fused_sweep(in, out, mat_base(), table_.data(), uniform_, ch_, layout_, domain_.n, fused_shape_,
                     z_stretches(domain_.n[2], fused_shape_.kz, part), recompute, wrap, cpml, compute_);
  if (part == SweepPart::inner) return;  // the outer stretches still read and write these copies
  swap_copies();
  if (fused_cpml_)
    for (SlabState& st : slabs_) {
      std::swap(st.psi[2], st.h_psi_spare[0]);
      std::swap(st.psi[3], st.h_psi_spare[1]);
    }
}

void CudaEngine::no_slab_box(int (&lo)[3], int (&hi)[3]) const {
  for (int a = 0; a < 3; ++a) {
    lo[a] = 0;
    hi[a] = int(domain_.n[a]);
  }
  for (const SlabState& st : slabs_) {
    // Slabs span the grid on the other axes: each cuts the no-slab box along its own.
    const int axis = st.slab.axis;
    if (st.slab.side == 0)
      lo[axis] = std::max<int>(lo[axis], int(st.slab.global.hi[axis] - domain_.offset[axis]));
    else
      hi[axis] = std::min<int>(hi[axis], int(st.slab.global.lo[axis] - domain_.offset[axis]));
  }
}

bool CudaEngine::fuse_cpml() {
  if (!spare_[0]) throw std::logic_error("CudaEngine::fuse_cpml without enable_fused");
  if (slabs_.size() > 6) return false;
  compute_.synchronize();
  for (SlabState& st : slabs_)
    for (auto& p : st.h_psi_spare) p = DeviceBuffer<float>(static_cast<std::size_t>(st.slab.local.cells()));
  fused_cpml_ = true;
  return true;
}

bool CudaEngine::enable_blocked(int steps, std::string& why, BlockedTiling tiling) {
  why = blocked_refusal(domain_, steps, deep_planes_, !slabs_.empty(),
                        disp_.active() || !tfsf_[0].empty() || !tfsf_[1].empty());
  if (!why.empty()) return false;
  if (!enable_fused(why)) return false;  // the second copy of the fields
  if (slabs_.size() > 6) {
    why = "more than six CPML slabs";
    return false;
  }
  // The pass takes a cell to lie in one slab per axis (an x or y slab's psi: one set of shared
  // slots per axis).
  for (const SlabState& a : slabs_)
    for (const SlabState& b : slabs_)
      if (a.slab.axis == b.slab.axis && a.slab.side < b.slab.side &&
          !intersect(a.slab.local, b.slab.local).empty()) {
        why = std::string("the CPML slabs of both ") + char('x' + a.slab.axis) + " faces overlap (fewer cells than two slabs)";
        return false;
      }
  for (const SlabState& st : slabs_)
    if (st.slab.local.cells() > std::numeric_limits<int>::max()) {  // the kernel's psi index is an int
      why = "a CPML slab of more than 2^31 cells";
      return false;
    }
  try {
    // psi after a pass for every slab, and after each step inside it for the z slabs (BlockedSlab).
    for (SlabState& st : slabs_)
      for (int s = 0; s < (st.slab.axis == 2 ? steps : 1); ++s)
        for (auto& p : st.blocked_psi[s]) {
          p = DeviceBuffer<float>(static_cast<std::size_t>(st.slab.local.cells()));
          if (!p.empty()) TESSERA_CUDA_CHECK(cudaMemsetAsync(p.data(), 0, p.bytes(), compute_));
        }
  } catch (const CudaError& e) {
    for (SlabState& st : slabs_)
      for (auto& level : st.blocked_psi)
        for (auto& p : level) p = DeviceBuffer<float>();
    (void)cudaGetLastError();
    why = std::string("no room on the GPU for the CPML's psi of every step of a pass (") + e.what() + ")";
    return false;
  }
  // The tiling asked for, else TESSERA_FDTD_BLOCKED_TILE ("16" or "32", then optionally the z
  // stretches: "32,2"), else 32 x 32 (docs/fdtd.md).
  if (tiling.tile_y == 0) {
    if (const auto tuning = env::get_integers("TESSERA_FDTD_BLOCKED_TILE")) {
      if (tuning->size() >= 1) tiling.tile_y = static_cast<int>((*tuning)[0]);
      if (tuning->size() >= 2) tiling.stretches = static_cast<int>((*tuning)[1]);
    }
  }
  blocked_shape_ = BlockedShape{};
  if (tiling.tile_y != 0) blocked_shape_.tile_y = tiling.tile_y == 16 ? 16 : 32;
  blocked_shape_.stretches = tiling.stretches;
  int device = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
  blocked_steps_ = steps;
  return true;
}

void CudaEngine::update_blocked(int steps, SweepPart part) {
  if (blocked_steps_ == 0) throw std::logic_error("CudaEngine::update_blocked without enable_blocked");
  if (steps < 2 || steps > blocked_steps_)
    throw std::logic_error("CudaEngine::update_blocked: " + std::to_string(steps) + " steps, enabled for 2.." +
                           std::to_string(blocked_steps_));
  const FieldPtrs in{{base_[kEx], base_[kEy], base_[kEz]}, {base_[kHx], base_[kHy], base_[kHz]}};
  const FieldPtrs out{{spare_[kEx], spare_[kEy], spare_[kEz]}, {spare_[kHx], spare_[kHy], spare_[kHz]}};
  int wrap = 0, pec = 0;
  for (int a = 0; a < 3; ++a) {
    wrap |= domain_.wraps_alone(a) ? 1 << a : 0;
    // The stepper zeroes the tangential E of a low wall (behind a CPML slab too).
    pec |= !domain_.neighbour[a][0] ? 1 << a : 0;
  }
  BlockedCpml cpml;
  no_slab_box(cpml.inner_lo, cpml.inner_hi);
  for (SlabState& st : slabs_) {
    if (st.slab.local.empty()) continue;
    if (part != SweepPart::all || deep_planes_ > 0)
      throw std::logic_error("CudaEngine::update_blocked: CPML slabs with z neighbours");
    cpml.of[st.slab.axis][st.slab.side] = cpml.count;
    BlockedSlab& f = cpml.slab[cpml.count++];
    describe_slab(f, st.slab, st.profile.data());
    f.plane = (f.hi[0] - f.lo[0]) * (f.hi[1] - f.lo[1]);
    for (int w = 0; w < 4; ++w) {
      f.psi_in[w] = st.psi[w].data();
      for (int s = 0; s < (f.axis == 2 ? steps : 1); ++s)
        if (st.blocked_psi.at(s)[w].size() != st.psi[w].size())
          throw std::logic_error("CudaEngine::update_blocked: CPML slabs set after enable_blocked");
      f.psi_out[w] = st.blocked_psi[0][w].data();
      for (int s = 1; s < kMaxBlockedSteps; ++s)
        f.psi_level[s - 1][w] = f.axis == 2 ? st.blocked_psi[s][w].data() : nullptr;
    }
  }
  if (cpml.of[2][0] >= 0 && cpml.of[2][1] >= 0) {  // the kernel indexes both by one column offset
    const BlockedSlab &lo = cpml.slab[cpml.of[2][0]], &hi = cpml.slab[cpml.of[2][1]];
    if (lo.lo[0] != hi.lo[0] || lo.hi[0] != hi.hi[0] || lo.lo[1] != hi.lo[1] || lo.hi[1] != hi.hi[1])
      throw std::logic_error("CudaEngine::update_blocked: the z slabs span different x-y boxes");
  }
  // A z neighbour's `steps` planes: what Ghosts::exchange_pass put beyond that face.
  const std::array<int, 2> deep{domain_.remote(2, 0) ? steps : 0, domain_.remote(2, 1) ? steps : 0};
  launch_blocked_sweep(in, out, mat_base(), table_.data(), uniform_, ch_, layout_, domain_.n, steps,
                       blocked_shape_, wrap, pec, deep, sms_, cpml, part, compute_);
  if (part == SweepPart::inner) return;  // the outer stretches still read and write these copies
  swap_copies();
  for (SlabState& st : slabs_)  // psi after the last step becomes the current psi
    for (int w = 0; w < 4; ++w) std::swap(st.psi[w], st.blocked_psi[0][w]);
}

}  // namespace tessera::fdtd
