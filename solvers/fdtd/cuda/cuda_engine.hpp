#pragma once
// The cuda engine (only *.cu files include this). Fields are SoA float arrays with rows padded
// to 128 bytes; the bulk updates are separate H and E kernels in which consecutive threads take
// consecutive x, each thread marching up a short column in z and carrying the z-neighbour it
// already loaded; CPML, PEC walls, sources and probes are small kernels over their regions.
#include <cuda_runtime.h>

#include <array>
#include <vector>

#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/stream.hpp"
#include "solvers/fdtd/backend.hpp"

namespace tessera::fdtd {

// Helpers of the engine's .cu files (defined in cuda_engine.cu).
namespace cuda_detail {
inline constexpr int kThreads = 256;  // 1D kernels
unsigned blocks_for(std::int64_t n);
// Host <-> device copies ordered on the stream and complete on return.
void to_device(void* dst, const void* src, std::size_t bytes, stream_t s);
void to_host(void* dst, const void* src, std::size_t bytes, stream_t s);
// dst <- a new device copy of src (after the stream's queued work, which may still use dst).
template <class T>
void upload_vector(DeviceBuffer<T>& dst, const std::vector<T>& src, stream_t s) {
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(s));
  dst = DeviceBuffer<T>(src.size());
  to_device(dst.data(), src.data(), src.size() * sizeof(T), s);
}
}  // namespace cuda_detail

// What kernels need to address the fields (device pointers).
struct DeviceView {
  FieldPtrs f;
  const MaterialIndex* mat;
  const Material* table;
  HCoeffs ch;
  Layout layout;
  Index3 n;
  bool uniform;
};

// The fused sweep (fused_sweep.cu): the new H and E of every cell of the n box from `in`
// into `out`, in tiles of 32 x tile_y columns (8 or 16) marching z stretches of kz layers.
struct FusedShape {
  int tile_y = 8, kz = 0;
};
// Which z stretches a launch sweeps (the fused and the blocked sweep): first, first + step,
// ... (count of them).
struct ZStretches {
  int first = 0, step = 1, count = 0;
};
// SweepPart's stretches of an nz-layer sweep with kz-layer stretches: inner, those that read
// no z ghost plane (none where there are fewer than 3 stretches); outer, the others.
ZStretches z_stretches(std::int64_t nz, int kz, SweepPart part);
// CPML slabs as the fused sweep applies them itself (CudaEngine::fuse_cpml): each slab's box
// (local cells), its profile and psi arrays (E: updated in place; H: read from `h_in`, written
// to `h_out`, since neighbouring tiles recompute the H of shared edge cells from the old psi).
struct FusedSlab {
  int axis;
  int lo[3], hi[3];
  const CpmlCoeffs* profile;  // per cell along `axis`, from lo[axis]
  float* e_psi[2];
  const float* h_in[2];
  float* h_out[2];
};
struct FusedCpml {
  int count = 0;
  FusedSlab slab[6];
  int inner_lo[3], inner_hi[3];  // the cells in no slab: most of the grid, one test each
};

// `recompute_low` bit a: the low ghost layer of axis a holds a neighbour's fields (HalfStep::
// fused), so its new H is computed like an own cell's. `wrap` bit a: axis a is periodic and
// this rank's alone; its ends read each other directly (no ghost). Otherwise a low ghost is a
// wall, read as it is.
// `cpml` (count 0: none): the slabs' corrections, bitwise cpml_h and cpml_e after the split
// kernels; no recomputed low ghost cell may lie in a slab (its psi is another rank's).
void launch_fused_sweep(const FieldPtrs& in, const FieldPtrs& out, const MaterialIndex* mat, const Material* table,
                        bool uniform, const HCoeffs& k, const Layout& l, const Index3& n, const FusedShape& shape,
                        const ZStretches& stretches, int recompute_low, int wrap, const FusedCpml& cpml,
                        cudaStream_t stream);
// The sweep's shape: tile_y 8 or 16, and `stretches` > 0 to force the number of z stretches
// (0: the measured best, 8 layers each).
FusedShape fused_shape(const Index3& n, int tile_y = 8, int stretches = 0);

// CPML slabs inside the blocked sweep (one rank): each slab's box (local cells), its profile,
// its psi before the pass (read only) and after it (the own cells; the engine makes it the
// current psi), and, for a z slab only, its psi after step s = 1..steps-1 of the pass (an x or
// y slab's psi between steps stays in shared memory, blocked_sweep.cu).
struct BlockedSlab {
  int axis;
  int lo[3], hi[3];
  const CpmlCoeffs* profile;  // per cell along `axis`, from lo[axis]
  int plane;                  // cells per z layer of the box: psi of (i, j, k) at (k - lo[2]) plane + ...
  const float* psi_in[4];     // [E a, E b, H a, H b]
  float* psi_out[4];
  float* psi_level[kMaxBlockedSteps - 1][4];  // z slabs: after step 1, 2, ...; else null
};
struct BlockedCpml {
  int count = 0;
  BlockedSlab slab[6];
  int of[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};  // the slab on each face (axis, side), -1: none
  int inner_lo[3], inner_hi[3];                   // the cells in no slab
};

// The blocked sweep (blocked_sweep.cu): `steps` (2..kMaxBlockedSteps) whole steps of the n box
// from `in` into `out` in one pass, each step H, E, the CPML slabs' corrections (`cpml`, count
// 0: none) and the zeroing of the tangential E on the low plane of every `pec` axis; bitwise
// that many split steps. Tiles of 32 x tile_y columns (16 or 32) march z stretches
// (`stretches`, 0: chosen). `wrap` as for the fused sweep. `deep` (low, high): 0, or at least
// `steps` planes beyond that z face that hold a
// neighbour's fields and materials (the arrays then extend below plane -1 and above plane n:
// CudaEngine's deep planes); x and y have no neighbour. At most kMaxBlockedSteps (backend.hpp).
struct BlockedShape {
  int tile_y = 32, stretches = 0;
};
// `part`: the whole pass, or the stretches that read no z neighbour's plane (inner) and then
// the others (outer). A split pass has at least 3 stretches of at least `steps` layers (a
// stretch reads `steps` layers beyond its ends), or none: inner is then empty and outer all.
void launch_blocked_sweep(const FieldPtrs& in, const FieldPtrs& out, const MaterialIndex* mat, const Material* table,
                          bool uniform, const HCoeffs& k, const Layout& l, const Index3& n, int steps,
                          const BlockedShape& shape, int wrap, int pec, const std::array<int, 2>& deep, int sms,
                          const BlockedCpml& cpml, SweepPart part, cudaStream_t stream);
// Dynamic shared memory of one block, and the layers of one z stretch (sms: the device's SMs).
std::size_t blocked_shared_bytes(int steps, int tile_y, bool cpml = false);
int blocked_stretch_layers(const Index3& n, int steps, const BlockedShape& shape, int sms);

class CudaEngine final : public Engine {
 public:
  CudaEngine(const LocalDomain& domain, const HCoeffs& ch);
  ~CudaEngine() override;

  Backend backend() const override { return Backend::cuda; }
  void set_materials(std::span<const MaterialIndex> index, const MaterialTable& table, bool uniform) override;
  void set_cpml(const std::vector<CpmlSlab>& slabs) override;
  void set_samples(std::span<const Sample> samples, int max_rows) override;
  void download(int component, std::span<float> host) override;
  void upload(int component, std::span<const float> host) override;
  void download_psi(int slab, int which, std::span<float> host) override;
  void upload_psi(int slab, int which, std::span<const float> host) override;
  void fill_random(std::uint64_t seed) override;
  void* base(int component) override { return base_[component]; }
  void* material_base() override { return mat_base(); }
  int deep_planes() const override { return deep_planes_; }
  void update_h(const Box& box) override;
  void update_e(const Box& box) override;
  void cpml_h(int slab) override;
  void cpml_e(int slab) override;
  void zero_tangential_e(int axis) override;
  void apply_kicks(std::span<const Kick> kicks) override;
  void sample(int row) override;
  void read_samples(int rows, std::span<float> host) override;
  EnergySums energy() override;
  bool enable_fused(std::string& why) override;
  void update_fused(SweepPart part) override;
  bool fuse_cpml() override;
  void fused_cpml_h(int slab) override;
  void fused_restore_e(const Box& box) override;
  void swap_copies() override;
  bool enable_blocked(int steps, std::string& why, BlockedTiling tiling) override;
  void update_blocked(int steps, SweepPart part) override;
  void add_sheet(int component, int axis, std::int64_t layer, float k) override;
  void set_overrides(std::span<const NodeCoeffs> nodes) override;
  void save_override_e() override;
  void apply_override_e() override;
  void set_tfsf(std::span<const TfsfTerm> h_terms, std::span<const TfsfTerm> e_terms) override;
  void apply_tfsf(bool electric, std::span<const float> inc) override;
  void set_dispersion(const DispersionSetup& setup) override;
  void download_polarisation(int slot, int which, int comp, std::span<float> host) override;
  void upload_polarisation(int slot, int which, int comp, std::span<const float> host) override;
  int add_dft(const DftRegion& region) override;
  void accumulate_dft(int id, std::span<const double> re, std::span<const double> im) override;
  void download_dft(int id, std::span<double> host) override;
  void upload_dft(int id, std::span<const double> host) override;
  stream_t compute_stream() const override { return compute_.get(); }
  stream_t halo_stream() const override { return halo_.get(); }
  void halo_after_compute() override;
  void compute_after_halo() override;
  void synchronize() override;

  DeviceView view() const;
  // Cells per thread column in z for a box (chosen to keep several waves of blocks).
  int column_length(const Box& box) const;
  // The bulk update through the generic one-thread-per-cell kernel (the shells use it).
  void update_h_generic(const Box& box);
  void update_e_generic(const Box& box);

 private:
  struct SlabState {
    CpmlSlab slab;
    std::array<DeviceBuffer<float>, 4> psi;  // E a, E b, H a, H b
    std::array<DeviceBuffer<float>, 2> h_psi_spare;  // the fused sweep's second copy of H's psi
    // The blocked sweep's psi (enable_blocked; BlockedSlab): [0] after a pass, [s] after step s
    // of a pass (s = 1..steps-1, a z slab's only).
    std::array<std::array<DeviceBuffer<float>, 4>, kMaxBlockedSteps> blocked_psi;
    DeviceBuffer<CpmlCoeffs> profile;
  };
  void cpml(int slab, bool electric, const FieldPtrs& f);
  // The local cells in no CPML slab (a box: slabs span the grid on the other axes).
  void no_slab_box(int (&lo)[3], int (&hi)[3]) const;
  MaterialIndex* mat_base() { return mat_store_.data() + lead_; }
  const MaterialIndex* mat_base() const { return mat_store_.data() + lead_; }
  // Elements of one array: the layout and its lead pad, and the deep planes on both z sides.
  std::size_t array_elements() const {
    return static_cast<std::size_t>(allocation_elements(layout_) + 2 * deep_planes_ * layout_.plane());
  }

  // Planes beyond the layout's ghost plane on each z side (a neighbour's cells for the blocked
  // sweep across ranks: blocked_deep_planes), and the offset of every array's base in its
  // allocation (the lead pad and the low deep planes).
  int deep_planes_ = 0;
  std::int64_t lead_ = kLeadPad;
  std::array<DeviceBuffer<float>, kComponents> store_;
  float* base_[kComponents]{};
  // The fused sweep's second copy (enable_fused); it and store_ swap roles every sweep.
  std::array<DeviceBuffer<float>, kComponents> spare_store_;
  float* spare_[kComponents]{};
  FusedShape fused_shape_;
  bool fused_cpml_ = false;  // fuse_cpml
  int blocked_steps_ = 0;    // enable_blocked: the most steps one pass may take
  BlockedShape blocked_shape_;
  int sms_ = 1;
  DeviceBuffer<MaterialIndex> mat_store_;
  DeviceBuffer<Material> table_;
  DeviceBuffer<float> eps_r_;
  bool uniform_ = true;
  std::vector<SlabState> slabs_;
  DeviceBuffer<NodeCoeffs> nodes_;  // set_overrides
  DeviceBuffer<float> node_e_;      // their E(n), kept by save_override_e
  std::int64_t nnodes_ = 0;
  // Dispersive materials: J slots then P slots, per E component, dense over disp_.box.
  DeviceBuffer<float>& polarisation(int slot, int which, int comp);
  std::array<std::array<DeviceBuffer<float>, 3>, 2 * kMaxPoles> pol_;
  DeviceBuffer<DispersiveMaterial> disp_table_;
  DispersionView disp_;  // device pointers
  std::array<DeviceBuffer<TfsfTerm>, 2> tfsf_;  // H, E corrections
  DeviceBuffer<float> tfsf_inc_;
  DeviceBuffer<Sample> samples_;
  DeviceBuffer<float> rows_;
  int nsamples_ = 0, max_rows_ = 0;
  DeviceBuffer<double> partials_;
  // A running DFT batches its samples: each step copies the region's field values (float32)
  // into `samples` and keeps the step's phasors on the host; every `batch` steps (and before
  // a download) one kernel adds the batch to the float64 accumulators, each accumulator its
  // terms in step order: the bits of a per-step accumulation, for 1/kDftBatch of the
  // accumulator traffic (16 bytes x frequencies per node and step would otherwise dominate).
  struct Dft {
    DftRegion region;
    DeviceBuffer<double> acc;      // frequency-major (backend.hpp)
    DeviceBuffer<float> samples;   // kDftBatch x cells, step-major
    DeviceBuffer<double> phasors;  // kDftBatch x nfreq x 2 (re, im), step-major
    std::vector<double> host_phasors;
    int batch = 1;  // steps per accumulation (kDftBatch, fewer for a large region)
    int pending = 0;
  };
  void flush_dft(Dft& d);
  std::vector<Dft> dft_;
  Stream compute_;
  Stream halo_{StreamPriority::high};  // packs and unpacks go ahead of queued bulk blocks
  cudaEvent_t ready_ = nullptr, halo_done_ = nullptr;
  int concurrent_blocks_ = 0;  // 256-thread blocks resident on the whole device
};

}  // namespace tessera::fdtd
