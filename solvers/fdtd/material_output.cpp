#include "solvers/fdtd/material_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "comm/errors.hpp"
#include "core/error.hpp"
#include "io/checked_io.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"
#include "io/published.hpp"
#include "solvers/fdtd/material_grid.hpp"

namespace tessera::fdtd {
namespace {

std::vector<double> xyz(const std::array<double, 3>& v) { return {v[0], v[1], v[2]}; }

// XDMF lists dimensions, origins and spacings slowest first.
template <class T>
std::string zyx(const std::array<T, 3>& v) {
  return fmt::format("{} {} {}", v[2], v[1], v[0]);
}

// One uniform grid whose cells are the samples: its points are their corners.
std::string xdmf_text(const std::string& h5, const VolumeSpec& v, const Index3& samples, const Model& m) {
  std::array<double, 3> corner{}, spacing{};
  Index3 points{};
  for (int a = 0; a < 3; ++a) {
    corner[a] = double(v.region.lo[a]) * m.cell_size[a];
    spacing[a] = double(v.stride[a]) * m.cell_size[a];
    points[a] = samples[a] + 1;
  }
  std::string out =
      "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n <Domain>\n";
  out += "  <Grid Name=\"materials\" GridType=\"Uniform\">\n";
  out += fmt::format("   <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{}\"/>\n", zyx(points));
  out += "   <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
  for (const auto& vec : {corner, spacing})
    out += fmt::format("    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">{}</DataItem>\n",
                       zyx(vec));
  out += "   </Geometry>\n";
  for (int q : v.quantities) {
    const bool index = q == kMaterialNumber;
    out += fmt::format("   <Attribute Name=\"{}\" AttributeType=\"Scalar\" Center=\"Cell\">\n", kMaterialQuantityName[q]);
    out += fmt::format("    <DataItem Dimensions=\"{}\" NumberType=\"{}\" Precision=\"{}\" Format=\"HDF\">{}:/{}</DataItem>\n",
                       zyx(samples), index ? "UChar" : "Float", index ? 1 : 4, h5, kMaterialQuantityName[q]);
    out += "   </Attribute>\n";
  }
  out += "  </Grid>\n </Domain>\n</Xdmf>\n";
  return out;
}

// Samples m of [0, count) whose cells lo + m stride lie in [begin, end): first, and how many.
void local_samples(std::int64_t lo, std::int64_t stride, std::int64_t count, std::int64_t begin, std::int64_t end,
                   std::int64_t& first, std::int64_t& n) {
  const auto ceil_div = [](std::int64_t a, std::int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; };
  first = std::min(ceil_div(begin - lo, stride), count);
  n = std::max<std::int64_t>(std::min(ceil_div(end - lo, stride), count) - first, 0);
}

}  // namespace

MaterialWriter::MaterialWriter(comm::Context& ctx, std::filesystem::path dir, const Model& model,
                               const LocalDomain& domain, io::Provenance provenance, bool whole_grid,
                               std::vector<MaterialIndex> index)
    : ctx_(ctx), dir_(std::move(dir)), model_(model), domain_(domain), provenance_(std::move(provenance)) {
  for (const VolumeSpec& v : model_.volumes)
    if (!v.quantities.empty()) outputs_.push_back({v.name + "_materials", v});
  if (!outputs_.empty() || whole_grid) index_ = std::move(index);
  if (!whole_grid) return;
  for (const VolumeSpec& v : model_.volumes)
    if (v.collocated && v.name == "materials")
      throw InputError("[output] materials = true writes materials.xmf, and so does the collocated [[fdtd.volume]] "
                       "named \"materials\": rename that volume");
  VolumeSpec all;
  all.name = "materials";
  all.region = {{0, 0, 0}, model_.cells};
  all.quantities = {kEpsX, kEpsY, kEpsZ, kSigma, kMaterialNumber};
  outputs_.push_back({"materials", all});
}

void MaterialWriter::write(std::span<const NodeOverride> nodes) {
  if (outputs_.empty()) return;
  if (index_.size() != static_cast<std::size_t>(make_layout(domain_.n).elements()))
    throw std::logic_error("MaterialWriter: no painted material index for this rank's cells");
  for (const Output& out : outputs_) write_one(out, nodes);
}

void MaterialWriter::write_one(const Output& out, std::span<const NodeOverride> nodes) {
  const VolumeSpec& v = out.spec;
  const Index3 samples = v.samples();
  Index3 first{}, count{};
  for (int a = 0; a < 3; ++a)
    local_samples(v.region.lo[a], v.stride[a], samples[a], domain_.offset[a], domain_.offset[a] + domain_.n[a],
                  first[a], count[a]);
  if (count[0] * count[1] * count[2] == 0) first = count = {0, 0, 0};
  const io::Box3 box{samples, first, count};
  // The local cells the samples lie in (a stride > 1 skips the others).
  Box cells;
  for (int a = 0; a < 3; ++a) {
    cells.lo[a] = v.region.lo[a] + first[a] * v.stride[a] - domain_.offset[a];
    cells.hi[a] = count[a] > 0 ? cells.lo[a] + (count[a] - 1) * v.stride[a] + 1 : cells.lo[a];
  }
  std::vector<std::string> names;
  for (const MaterialSpec& spec : model_.materials) names.push_back(spec.name);
  const std::filesystem::path h5 = dir_ / (out.stem + ".h5");
  {
    io::OutputFile f(ctx_, h5);
    const io::Group& root = f.root();
    std::vector<float> all(static_cast<std::size_t>(cells.cells()));
    for (int q : v.quantities) {
      material_values(model_, domain_, index_, q, cells, all, nodes);
      // Every stride-th cell of the box.
      std::vector<float> dense(static_cast<std::size_t>(box.volume()));
      const Index3 n{cells.extent(0), cells.extent(1), cells.extent(2)};
      std::size_t at = 0;
      for (std::int64_t k = 0; k < count[2]; ++k)
        for (std::int64_t j = 0; j < count[1]; ++j)
          for (std::int64_t i = 0; i < count[0]; ++i)
            dense[at++] = all[static_cast<std::size_t>(((k * v.stride[2]) * n[1] + j * v.stride[1]) * n[0] +
                                                       i * v.stride[0])];
      const char* name = kMaterialQuantityName[q];
      io::Dataset d = [&] {
        if (q != kMaterialNumber)
          return io::write_3d_checked<float>(root, name, dense, box, io::Strided3::dense(count));
        std::vector<std::uint8_t> numbers(dense.size());
        std::transform(dense.begin(), dense.end(), numbers.begin(), [](float x) { return std::uint8_t(x); });
        return io::write_3d_checked<std::uint8_t>(root, name, numbers, box, io::Strided3::dense(count));
      }();
      io::write_units(d, kMaterialQuantityUnits[q]);
      std::array<double, 3> centre{}, spacing{}, corner{};
      for (int a = 0; a < 3; ++a) {
        centre[a] = (double(v.region.lo[a]) + 0.5) * model_.cell_size[a];
        corner[a] = double(v.region.lo[a]) * model_.cell_size[a];
        spacing[a] = double(v.stride[a]) * model_.cell_size[a];
      }
      io::write_attribute(d, "origin", xyz(centre));
      io::write_attribute(d, "spacing", xyz(spacing));
      io::write_attribute(d, "voxel_origin", xyz(corner));
      io::write_attribute(d, "voxel_size", xyz(spacing));
      if (q == kMaterialNumber) io::write_vlen_attribute(d, "materials", names);
    }
    io::write_provenance(root, provenance_);
    io::write_attribute(root, "step", std::int64_t{0});
    io::write_attribute(root, "time", 0.0);
    io::write_attribute(root, "cell_size", xyz(model_.cell_size));
    io::write_attribute(root, "cells", std::vector<std::int64_t>(model_.cells.begin(), model_.cells.end()));
    io::write_attribute(root, "first_cell", std::vector<std::int64_t>(v.region.lo.begin(), v.region.lo.end()));
    io::write_attribute(root, "stride", std::vector<std::int64_t>(v.stride.begin(), v.stride.end()));
    io::write_vlen_attribute(root, "materials", names);
    io::log_published(f.commit());
  }
  const std::filesystem::path xmf = dir_ / (out.stem + ".xmf");
  comm::agree(ctx_, [&] {
    if (ctx_.is_root()) io::publish_text_file(xmf, xdmf_text(h5.filename().string(), v, samples, model_));
  });
  io::log_published(xmf, "material grid: open in ParaView or VisIt:");
}

}  // namespace tessera::fdtd
