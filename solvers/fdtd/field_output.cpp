#include "solvers/fdtd/field_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

#include "comm/cart.hpp"
#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "comm/halo.hpp"
#include "comm/transport.hpp"
#include "core/error.hpp"
#include "io/checked_io.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"
#include "io/units.hpp"
#include "io/published.hpp"
#include "solvers/fdtd/ghosts.hpp"

namespace tessera::fdtd {
namespace {

// Samples m of [0, count) with cells lo + m * stride inside [begin, end).
void local_samples(std::int64_t lo, std::int64_t stride, std::int64_t count, std::int64_t begin, std::int64_t end,
                   std::int64_t& first, std::int64_t& n) {
  const auto ceil_div = [](std::int64_t a, std::int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; };
  first = std::min(ceil_div(begin - lo, stride), count);
  const std::int64_t last = std::min(ceil_div(end - lo, stride), count);
  n = std::max<std::int64_t>(last - first, 0);
}

std::vector<double> xyz(const std::array<double, 3>& v) { return {v[0], v[1], v[2]}; }

// A (nz, ny, nx, 3) float32 dataset of this rank's box of vectors (`local`: x fastest, the 3
// components of a cell together), with its checksum (io/checksum.hpp: each x row of the box is
// one run of 3 size[0] values in the file's order).
io::Dataset write_vectors(const io::Group& g, const std::string& name, const std::vector<float>& local,
                          const io::Box3& box) {
  const auto u = [](std::int64_t v) { return static_cast<hsize_t>(v); };
  io::detail::Selection sel;
  sel.global = {u(box.global[2]), u(box.global[1]), u(box.global[0]), 3};
  sel.start = {u(box.offset[2]), u(box.offset[1]), u(box.offset[0]), 0};
  sel.count = {u(box.size[2]), u(box.size[1]), u(box.size[0]), 3};
  sel.mem_dims = sel.count;
  sel.mem_start = {0, 0, 0, 0};
  io::Dataset d = io::detail::write_selection(g, name, io::ElementType::float32, local.data(), local.size(), sel);
  std::uint64_t part = 0;
  for (std::int64_t k = 0; k < box.size[2]; ++k)
    for (std::int64_t j = 0; j < box.size[1]; ++j) {
      const std::int64_t row = ((box.offset[2] + k) * box.global[1] + box.offset[1] + j) * box.global[0] + box.offset[0];
      part += io::checksum_bytes(local.data() + ((k * box.size[1] + j) * box.size[0]) * 3, 3 * box.size[0],
                                 sizeof(float), 3 * row);
    }
  io::detail::record_checksum(d, part);
  return d;
}

// Where a dataset's element [0, 0, 0] lies, when its values were taken, and their unit.
void place(const io::Dataset& d, const XdmfGrid& grid, double time, const char* units) {
  io::write_units(d, units);
  io::write_attribute(d, "origin", xyz(grid.origin));
  io::write_attribute(d, "spacing", xyz(grid.spacing));
  io::write_attribute(d, "time", time);
}

}  // namespace

FieldWriter::FieldWriter(comm::Context& ctx, std::filesystem::path dir, const Model& model,
                         const comm::CartDecomposition& decomp, io::Provenance provenance, bool openpmd)
    : ctx_(ctx),
      dir_(std::move(dir)),
      model_(model),
      domain_(local_domain(decomp)),
      layout_(make_layout(domain_.n)),
      provenance_(std::move(provenance)),
      openpmd_(openpmd) {
  const double half = 0.5 * model_.dt;
  std::array<bool, kComponents> need{};
  for (const VolumeSpec& v : model_.volumes) {
    if (v.components.empty()) continue;  // the material grid alone: material_output.hpp writes it
    Series s;
    s.spec = &v;
    s.xdmf.name = v.name;
    if (v.collocated) {
      XdmfGrid g;
      g.name = v.name;
      g.samples = v.samples();
      for (int a = 0; a < 3; ++a) {
        g.origin[a] = (double(v.region.lo[a]) + 0.5) * model_.cell_size[a];
        g.spacing[a] = double(v.stride[a]) * model_.cell_size[a];
      }
      const bool e = std::any_of(v.components.begin(), v.components.end(), [](int c) { return c < kHx; });
      const bool h = std::any_of(v.components.begin(), v.components.end(), [](int c) { return c >= kHx; });
      if (e) g.arrays.push_back({"E", 3});
      if (h) {
        g.arrays.push_back({"H", 3});
        g.times.emplace_back("time_h", -half);
      }
      for (int c = 0; c < kComponents; ++c)
        if ((c < kHx && e) || (c >= kHx && h)) need[c] = true;
      s.xdmf.grids.push_back(std::move(g));
    } else {
      for (int c : v.components) {
        XdmfGrid g;
        g.name = kComponentName[c];
        g.samples = v.samples(c, model_.cells);
        const auto offset = staggering(c);
        for (int a = 0; a < 3; ++a) {
          g.origin[a] = (double(v.region.lo[a]) + offset[a]) * model_.cell_size[a];
          g.spacing[a] = double(v.stride[a]) * model_.cell_size[a];
        }
        g.arrays.push_back({kComponentName[c], 1});
        g.times = {{"time", c >= kHx ? -half : 0.0}};
        need[c] = true;
        s.xdmf.grids.push_back(std::move(g));
      }
    }
    series_.push_back(std::move(s));
  }
  host_.resize(kComponents);
  for (int c = 0; c < kComponents; ++c)
    if (need[c]) needed_.push_back(c);
  if (needed_.empty()) return;
  // Host copies travel through plain MPI whatever the engine's backend.
  transport_ = comm::make_transport(ctx_, Backend::cpu, "auto").transport;
  comm::HaloLayout hl;
  hl.n = domain_.n;
  hl.ghost = 1;
  hl.pitch = layout_.pitch;
  hl.rows = layout_.rows;
  hl.elem_size = sizeof(float);
  comm::HaloOptions opt;
  opt.corners = true;  // a cell centre reads E at (j+1, k+1), a wall corner node too
  opt.fill = {{{false, true}, {false, true}, {false, true}}};
  halo_ = std::make_unique<comm::HaloExchange>(decomp, *transport_, hl, static_cast<int>(needed_.size()), opt);
}

FieldWriter::~FieldWriter() = default;

std::filesystem::path FieldWriter::file_for(const VolumeSpec& v, std::int64_t step) const {
  return dir_ / fmt::format("{}_{:08d}.h5", v.name, step);
}

void FieldWriter::local_range(const VolumeSpec& v, const Index3& samples, bool wall, Index3& first,
                              Index3& count) const {
  for (int a = 0; a < 3; ++a) {
    const std::int64_t begin = domain_.offset[a];
    std::int64_t end = begin + domain_.n[a];
    if (wall && end == model_.cells[a]) ++end;  // the node on the high wall: this rank's ghost layer
    local_samples(v.region.lo[a], v.stride[a], samples[a], begin, end, first[a], count[a]);
  }
  if (count[0] * count[1] * count[2] == 0) first = count = {0, 0, 0};
}

template <class Visit>
void FieldWriter::for_each_sample(const VolumeSpec& v, const Index3& first, const Index3& count, Visit&& visit) const {
  // This rank's samples first .. first + count, x fastest, as local indices of the host copies.
  const auto local = [&](int a, std::int64_t m) {
    return v.region.lo[a] + (first[a] + m) * v.stride[a] - domain_.offset[a];
  };
  for (std::int64_t k = 0; k < count[2]; ++k)
    for (std::int64_t j = 0; j < count[1]; ++j)
      for (std::int64_t i = 0; i < count[0]; ++i) visit(local(0, i), local(1, j), local(2, k));
}

void FieldWriter::write(Stepper& stepper) {
  const std::int64_t step = stepper.steps();
  const double t = stepper.time();
  Engine& engine = stepper.engine();
  if (engine.layout().pitch != layout_.pitch || engine.layout().rows != layout_.rows ||
      engine.layout().planes != layout_.planes)
    throw std::logic_error("FieldWriter: the engine's layout is not the one of the decomposition");

  // Host copies of every component an output reads. Their high ghost layers get what the
  // outputs need one node beyond this rank: 0 beyond a pec or cpml face (the PEC wall: tangential
  // E, and normal H, which keeps its zero start there), the neighbour's nodes elsewhere (across
  // periodic faces too), edges and corners included.
  std::vector<void*> fields;
  for (int c : needed_) {
    std::vector<float>& f = host_[c];
    f.resize(static_cast<std::size_t>(layout_.elements()));
    engine.download(c, f);
    const Index3& n = domain_.n;
    for (std::int64_t k = -1; k <= n[2]; ++k)
      for (std::int64_t j = -1; j <= n[1]; ++j) {
        if (k == n[2] || j == n[1])
          for (std::int64_t i = -1; i <= n[0]; ++i) f[static_cast<std::size_t>(layout_.at(i, j, k))] = 0.0f;
        else
          f[static_cast<std::size_t>(layout_.at(n[0], j, k))] = 0.0f;
      }
    fields.push_back(f.data());
  }
  if (halo_) halo_->exchange(fields);

  for (Series& s : series_) {
    const VolumeSpec& v = *s.spec;
    const std::filesystem::path final_path = file_for(v, step);
    {
      // Published only whole: written as final_path.tmp, read back and verified, renamed.
      io::OutputFile f(ctx_, final_path);
      const io::Group& root = f.root();
      if (v.collocated) write_collocated(s, root, t);
      else write_staggered(s, root, t);
      io::write_provenance(root, provenance_);
      io::write_attribute(root, "step", step);
      io::write_attribute(root, "time", t);
      io::write_attribute(root, "time_h", t - 0.5 * model_.dt);
      io::write_attribute(root, "dt", model_.dt);
      io::write_attribute(root, "cell_size", std::vector<double>(model_.cell_size.begin(), model_.cell_size.end()));
      io::write_attribute(root, "cells", std::vector<std::int64_t>(model_.cells.begin(), model_.cells.end()));
      io::write_attribute(root, "first_cell", std::vector<std::int64_t>(v.region.lo.begin(), v.region.lo.end()));
      io::write_attribute(root, "stride", std::vector<std::int64_t>(v.stride.begin(), v.stride.end()));
      io::write_attribute(root, "layout", v.collocated ? "collocated" : "staggered");
      io::log_published(f.commit());
    }
    if (openpmd_) write_openpmd(s, step, t);
    // In step order, once each: a restart rewrites a step's file in place, and the earlier
    // run's later files stay on disk and listed.
    auto& steps = s.xdmf.steps;
    const auto at = std::lower_bound(steps.begin(), steps.end(), step,
                                     [](const XdmfStep& e, std::int64_t st) { return e.step < st; });
    const XdmfStep entry{step, t, final_path.filename().string()};
    if (at != steps.end() && at->step == step) *at = entry;
    else steps.insert(at, entry);
    comm::agree(ctx_, [&] {
      if (ctx_.is_root()) write_xdmf(s);
    });
  }
  // The copies are as large as the fields: held only while writing.
  for (std::vector<float>& f : host_) std::vector<float>().swap(f);
}

void FieldWriter::write_staggered(const Series& s, const io::Group& root, double t) {
  const VolumeSpec& v = *s.spec;
  for (std::size_t g = 0; g < v.components.size(); ++g) {
    const int c = v.components[g];
    const XdmfGrid& grid = s.xdmf.grids[g];
    Index3 first, count;
    local_range(v, grid.samples, true, first, count);
    const io::Box3 box{grid.samples, first, count};
    std::vector<float> dense(static_cast<std::size_t>(box.volume()));
    const std::vector<float>& src = host_[c];
    std::size_t at = 0;
    for_each_sample(v, first, count, [&](std::int64_t li, std::int64_t lj, std::int64_t lk) {
      dense[at++] = src[static_cast<std::size_t>(layout_.at(li, lj, lk))];
    });
    const io::Dataset d = io::write_3d_checked<float>(root, kComponentName[c], dense, box, io::Strided3::dense(count));
    place(d, grid, t + grid.times.front().second, kComponentUnits[c]);
  }
}

float FieldWriter::centred(int c, std::int64_t i, std::int64_t j, std::int64_t k) const {
  const std::vector<float>& f = host_[c];
  const auto v = [&](std::int64_t a, std::int64_t b, std::int64_t d) {
    return f[static_cast<std::size_t>(layout_.at(a, b, d))];
  };
  // The mean over the axes along which the component's nodes sit on cell faces/edges (Yee
  // offset 0): E over the 4 nodes of the two axes other than its own, H over 2 along its own.
  switch (c) {
    case kEx: return 0.25f * ((v(i, j, k) + v(i, j + 1, k)) + (v(i, j, k + 1) + v(i, j + 1, k + 1)));
    case kEy: return 0.25f * ((v(i, j, k) + v(i + 1, j, k)) + (v(i, j, k + 1) + v(i + 1, j, k + 1)));
    case kEz: return 0.25f * ((v(i, j, k) + v(i + 1, j, k)) + (v(i, j + 1, k) + v(i + 1, j + 1, k)));
    case kHx: return 0.5f * (v(i, j, k) + v(i + 1, j, k));
    case kHy: return 0.5f * (v(i, j, k) + v(i, j + 1, k));
    default: return 0.5f * (v(i, j, k) + v(i, j, k + 1));
  }
}

void FieldWriter::write_collocated(const Series& s, const io::Group& root, double t) {
  const VolumeSpec& v = *s.spec;
  const XdmfGrid& grid = s.xdmf.grids.front();
  Index3 first, count;
  local_range(v, grid.samples, false, first, count);
  const io::Box3 box{grid.samples, first, count};
  for (const XdmfArray& a : grid.arrays) {
    const int base = a.name == "E" ? kEx : kHx;
    std::vector<float> vectors(static_cast<std::size_t>(3 * box.volume()));
    std::size_t at = 0;
    for_each_sample(v, first, count, [&](std::int64_t li, std::int64_t lj, std::int64_t lk) {
      for (int d = 0; d < 3; ++d) vectors[at++] = centred(base + d, li, lj, lk);
    });
    const io::Dataset d = write_vectors(root, a.name, vectors, box);
    place(d, grid, base == kHx ? t - 0.5 * model_.dt : t, kComponentUnits[base]);
  }
}

void FieldWriter::write_xdmf(const Series& s) const {
  // ParaView's default reader (Xdmf3 Reader S) flattens a file of several grids into pieces of
  // one block: colouring a staggered volume's file by one component painted the other
  // components' pieces grey. So a staggered volume writes one file per component (its own
  // nodes, its own times), which every reader shows; a collocated volume one file, one grid.
  std::vector<std::filesystem::path> files;
  if (s.spec->collocated) files.push_back(dir_ / (s.spec->name + ".xmf"));
  for (std::size_t g = 0; g < s.xdmf.grids.size() && !s.spec->collocated; ++g) {
    files.push_back(dir_ / (s.spec->name + "_" + s.xdmf.grids[g].name + ".xmf"));
    io::publish_text_file(files.back(), xdmf_grid_text(s.xdmf, g));
  }
  if (s.spec->collocated) io::publish_text_file(files.front(), xdmf_text(s.xdmf));
  for (const auto& f : files) io::log_published(f);
  // Once, at the series' first output: which file a user opens.
  if (s.xdmf.steps.size() == 1) io::log_published(files.front(), "open in ParaView or VisIt:");
}

void FieldWriter::resume(std::int64_t /*step*/) {
  // Only rank 0 writes the .xmf, so only it needs the list of earlier outputs: every file of
  // the series on disk, those after the restart step too (they stay until rewritten).
  comm::agree(ctx_, [&] {
    if (!ctx_.is_root()) return;
    for (Series& s : series_) {
      s.xdmf.steps.clear();
      const std::string prefix = s.spec->name + "_";
      std::vector<std::int64_t> found;
      if (std::filesystem::is_directory(dir_))
        for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
          const std::string name = entry.path().filename().string();
          if (name.size() < prefix.size() + 8 + 3 || name.compare(0, prefix.size(), prefix) != 0 ||
              name.compare(name.size() - 3, 3, ".h5") != 0)
            continue;
          const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 3);
          if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
          const std::int64_t st = std::stoll(digits);
          if (name == file_for(*s.spec, st).filename().string()) found.push_back(st);  // tessera's own name
        }
      std::sort(found.begin(), found.end());
      for (std::int64_t st : found)
        s.xdmf.steps.push_back({st, double(st) * model_.dt, file_for(*s.spec, st).filename().string()});
    }
  });
}

}  // namespace tessera::fdtd
