#pragma once
// The problem a deck describes, resolved and validated: grid, time step, boundaries, materials,
// geometry, sources, probes and field outputs. Positions are already converted to cells.
// params_from_deck() reports every user mistake as an InputError naming the deck key.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/deck/config.hpp"
#include "solvers/fdtd/grid.hpp"
#include "solvers/fdtd/waveform.hpp"
#include "solvers/fdtd/yee.hpp"

namespace tessera::fdtd {

enum class FaceKind { pec, periodic, cpml };

struct CpmlParams {
  int thickness = 10;
  double order = 3;
  double r0 = 1e-6;
  double kappa_max = 1;
  double alpha_max = 0;  // S/m
};

// A Drude or Lorentz pole (dispersion.hpp), angular: eps(w) gains w_p2 / (w_0^2 - w^2 - i gamma w).
// Drude: w_p2 = (2 pi f_p)^2, w_0 = 0; Lorentz: w_p2 = delta_eps w_0^2.
struct PoleSpec {
  double omega_p2 = 0;  // rad^2/s^2
  double omega0 = 0;    // rad/s
  double gamma = 0;     // rad/s
};

struct MaterialSpec {
  std::string name;
  double eps_r = 1;  // eps_inf of a dispersive material
  double sigma = 0;  // S/m
  bool pec = false;
  std::vector<PoleSpec> poles;  // Drude poles first, then Lorentz, in deck order
  bool dispersive() const { return !poles.empty(); }
};

enum class ShapeKind { box, sphere, cylinder, mesh, voxels };

class ShapeData;  // geometry/shape_data.hpp

// Where a file-backed shape (mesh, voxels) comes from, as the deck gives it.
struct ShapeFile {
  std::string name;   // the deck table, "fdtd.geometry[2]"
  std::string path;   // resolved against the deck's folder
  std::string where;  // the deck line of its `file` key, for messages ("deck.toml:12")
  // mesh (STL): a vertex v lands at R (scale v) + translate, R = Rz Ry Rx with the angles of
  // `rotate` in degrees (x first).
  double scale = 1;
  std::array<double, 3> rotate{}, translate{};
  // voxels (HDF5): voxel (i, j, k) of `dataset` covers origin + [i, i+1) voxel_size[0] etc.
  // An integer dataset holds material numbers: value v is Model::materials[materials[v]]. A
  // floating-point one holds eps_r per voxel, on top of the shape's `material`.
  std::string dataset;
  std::array<double, 3> origin{}, voxel_size{};
  std::vector<int> materials;
};

struct Shape {
  ShapeKind kind = ShapeKind::box;
  int material = 0;
  std::array<double, 3> min{}, max{};  // box
  std::array<double, 3> center{};      // sphere, cylinder
  double radius = 0, length = 0;       // sphere, cylinder
  int axis = 2;                        // cylinder
  ShapeFile file;                      // mesh, voxels
  // mesh, voxels: what this rank loaded from the file (geometry/load.hpp); min and max hold
  // the shape's bounds once it is loaded.
  std::shared_ptr<const ShapeData> data;
  bool contains(const std::array<double, 3>& p) const { return material_at(p) >= 0; }
  // The material at p (a voxel map's own, the shape's for the others), -1 outside the shape.
  int material_at(const std::array<double, 3>& p) const;
  // Axis-aligned bounds, for the inside-the-domain check.
  std::array<double, 3> lower() const;
  std::array<double, 3> upper() const;
};

// One Yee node of one component: where a source acts or a probe reads.
struct Node {
  int component = 0;
  Index3 cell{};  // global
};

struct SourceSpec {
  Node node;
  bool hard = false;
  Waveform waveform;
  double amplitude = 1;
};

struct ProbeSpec {
  std::string name;
  std::vector<Node> nodes;  // one per recorded component
};

struct VolumeSpec {
  std::string name;
  std::vector<int> components;
  Box region;  // global cells
  Index3 stride{1, 1, 1};
  // Cell-centred vectors E and H (those of which `components` names any) on one grid, instead
  // of each component on its own Yee nodes.
  bool collocated = false;
  // Material grid quantities (material_quantity.hpp), written once at the start of the run to
  // <name>_materials.h5 (material_output.hpp).
  std::vector<int> quantities;
  // Samples along each axis: cells region.lo + m * stride, m < samples.
  Index3 samples() const;
  // The nodes of `component` written by a staggered output: samples(), plus the node on the
  // high wall of the domain (global index cells[a]) along each axis where the component has
  // nodes on the walls (Yee offset 0 along it, e.g. Ez along x and y), the region reaches that
  // wall and is more than one cell thick (a plane keeps one sample), and the stride lands on it.
  Index3 samples(int component, const Index3& cells) const;
};

// How the bulk of a step runs (fdtd.sweep): all give the same bits.
enum class Sweep { automatic, fused, split, blocked };
// Frequencies of a spectral monitor, from `frequencies = [...]` or `fmin`, `fmax`, `nfreq`.
// Every frequency is at most the Nyquist limit 1 / (2 every dt) of its sampling.
struct Spectrum {
  std::vector<double> frequencies;  // Hz
  int every = 1;                    // accumulate every this many steps
};

// [[fdtd.dft]]: running DFTs of chosen components over the cells of `region` (each component
// on its own node of each cell, as a staggered volume without the high-wall nodes).
struct DftSpec {
  std::string name;
  std::vector<int> components;
  Box region;  // global cells
  Spectrum spectrum;
};

// [[fdtd.flux]]: the Poynting flux through an axis-normal plane. The plane is the layer of E
// nodes `layer` along `axis` (at layer * d, where the tangential E live); the tangential H sit
// half a cell either side (layers layer - 1 and layer) and are averaged onto it. `region`
// holds the transverse cells (and [layer, layer + 1) along the axis).
struct FluxSpec {
  std::string name;
  int axis = 2;
  std::int64_t layer = 0;
  Box region;
  Spectrum spectrum;
  double weight = 1;     // the flux along +axis times this (-1: along -axis)
  std::string subtract;  // flux.h5 of an earlier run: its DFT fields of this plane are subtracted
};

// [[fdtd.plane_wave]]: a uniform electric current sheet K(t) = amplitude * waveform(t) (A/m)
// along `component` over the whole plane of its nodes at layer `layer` along `axis`. It
// radiates plane waves of E = -eta K / 2 both ways (normal incidence; periodic or PML sides).
// (A later total-field/scattered-field box would be a table of its own with the same waveform
// keys.)
struct PlaneWaveSpec {
  int axis = 2;
  std::int64_t layer = 0;
  int component = 0;  // an E component tangential to axis
  Waveform waveform;
  double amplitude = 1;  // A/m
};

// A total-field/scattered-field box ([[fdtd.tfsf]], tfsf.hpp): a plane wave along `axis` in
// direction `dir` (+1 or -1) with E along `component` (tangential to axis), of amplitude
// `amplitude` (V/m) x waveform, exists inside the box only. box: the node planes lo..hi of each
// axis (global cells): tangential E nodes on the planes are inside.
struct TfsfSpec {
  Box box;
  int axis = 2;
  int dir = 1;
  int component = 0;
  Waveform waveform;
  double amplitude = 1;  // V/m
};

struct Model {
  Index3 cells{};
  std::array<double, 3> cell_size{};
  double dt = 0;
  std::array<std::array<FaceKind, 2>, 3> faces{};
  CpmlParams cpml;
  std::vector<MaterialSpec> materials;  // [0] vacuum, [1] pec, then the deck's
  int background = 0;
  std::vector<Shape> shapes;
  std::vector<SourceSpec> sources;
  std::vector<ProbeSpec> probes;
  int probe_every = 1;
  std::vector<VolumeSpec> volumes;
  std::vector<DftSpec> dfts;
  std::vector<FluxSpec> fluxes;
  std::vector<PlaneWaveSpec> plane_waves;
  std::vector<TfsfSpec> tfsf;  // at most one
  std::array<int, 3> ranks{0, 0, 0};
  Sweep sweep = Sweep::automatic;
  int block_steps = 0;  // fdtd.block_steps: the most steps one pass of the blocked sweep takes; 0 (unset): pass_steps()
  bool smoothing = false;  // sub-pixel smoothing of the E nodes at interfaces (smoothing.hpp)

  bool periodic(int axis) const { return faces[axis][0] == FaceKind::periodic; }
  bool has_cpml() const {
    for (const auto& f : faces)
      if (f[0] == FaceKind::cpml || f[1] == FaceKind::cpml) return true;
    return false;
  }
  // The blocked sweep's steps per pass: block_steps where given, else the measured fastest: 4,
  // or 3 with CPML slabs (their corrections make the pass bound by instruction issue, and a
  // pass of 3 recomputes fewer halo cells; docs/performance.md).
  int pass_steps() const { return block_steps > 0 ? block_steps : has_cpml() ? 3 : 4; }
  int cpml_cells(int axis, int side) const { return faces[axis][side] == FaceKind::cpml ? cpml.thickness : 0; }
  double cell_volume() const { return cell_size[0] * cell_size[1] * cell_size[2]; }
  std::int64_t total_cells() const { return cells[0] * cells[1] * cells[2]; }
};

inline constexpr int kVacuum = 0;
inline constexpr int kPec = 1;
// The per-cell index bounds the table.
inline constexpr int kMaxMaterials = 1 << (8 * sizeof(MaterialIndex));

// The largest stable time step of the 3D Yee scheme in vacuum: 1 / (c0 sqrt(sum 1/d^2)).
double courant_limit(const std::array<double, 3>& cell_size);

// The node of `component` nearest to `position` (m), clamped into the grid.
Node nearest_node(int component, const std::array<double, 3>& position, const Model& m);

// Component names separated by spaces or commas ("Ex Ez", "Hx,Hy") -> indices; InputError
// naming `where` for an unknown name, a repeat or an empty list.
std::vector<int> parse_components(const std::string& text, const std::string& where);

Model params_from_deck(const deck::Config& deck);

}  // namespace tessera::fdtd
