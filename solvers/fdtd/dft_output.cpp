#include "solvers/fdtd/dft_output.hpp"

#include <fmt/format.h>

#include "comm/errors.hpp"
#include "io/checked_io.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"
#include "io/published.hpp"
#include "solvers/fdtd/spectra_io.hpp"

namespace tessera::fdtd {
namespace {

std::array<double, 3> origin_of(const Box& region, int component, const Model& m) {
  const auto off = staggering(component);
  std::array<double, 3> o;
  for (int a = 0; a < 3; ++a) o[a] = (double(region.lo[a]) + off[a]) * m.cell_size[a];
  return o;
}

}  // namespace

DftWriter::DftWriter(comm::Context& ctx, std::filesystem::path dir, const Model& model, io::Provenance provenance)
    : ctx_(ctx), dir_(std::move(dir)), model_(model), provenance_(std::move(provenance)) {}

void DftWriter::write(Stepper& stepper) {
  Engine& engine = stepper.engine();
  for (std::size_t i = 0; i < model_.dfts.size(); ++i) {
    const DftSpec& spec = model_.dfts[i];
    const DftMonitor& m = stepper.spectra().dfts()[i];
    const std::size_t nf = spec.spectrum.frequencies.size();
    io::OutputFile f(ctx_, file_for(spec));
    const io::Group& root = f.root();
    io::write_provenance(root, provenance_);
    io::write_attribute(root, "step", stepper.steps());
    io::write_attribute(root, "time", stepper.time());
    io::write_attribute(root, "dt", model_.dt);
    io::write_attribute(root, "every", static_cast<std::int64_t>(spec.spectrum.every));
    io::write_attribute(root, "cells", std::vector<std::int64_t>(model_.cells.begin(), model_.cells.end()));
    io::write_attribute(root, "first_cell", std::vector<std::int64_t>(spec.region.lo.begin(), spec.region.lo.end()));
    {
      const auto& fr = spec.spectrum.frequencies;
      const bool root_rank = ctx_.is_root();
      const io::Dataset d = io::write_1d_checked<double>(
          root, "frequencies", root_rank ? std::span<const double>(fr) : std::span<const double>(), 0,
          static_cast<std::int64_t>(fr.size()));
      io::write_units(d, "Hz");
    }
    for (const DftBlock& b : m.blocks) {
      const std::vector<double> acc = Spectra::download(b, nf, engine);
      const std::int64_t cells = b.global.cells();
      for (int part = 0; part < 2; ++part) {
        std::vector<double> dense(nf * static_cast<std::size_t>(cells));
        for (std::size_t fi = 0; fi < nf; ++fi)
          std::copy_n(acc.begin() + static_cast<std::ptrdiff_t>((2 * fi + part) * cells), cells,
                      dense.begin() + static_cast<std::ptrdiff_t>(fi * cells));
        const std::string name = std::string(kComponentName[b.component]) + (part == 0 ? "_re" : "_im");
        const io::Dataset d = write_block_4d(root, name, dense, static_cast<std::int64_t>(nf), b.array, b.global);
        io::write_units(d, b.component < kHx ? "V s/m" : "A s/m");
        const auto o = origin_of(spec.region, b.component, model_);
        io::write_attribute(d, "origin", std::vector<double>(o.begin(), o.end()));
        io::write_attribute(d, "spacing", std::vector<double>(model_.cell_size.begin(), model_.cell_size.end()));
      }
    }
    io::log_published(f.commit());
    if (!xdmf_written_)
      comm::agree(ctx_, [&] {
        if (!ctx_.is_root()) return;
        for (std::size_t fi = 0; fi < nf; ++fi) {
          const std::filesystem::path xmf = dir_ / fmt::format("{}_dft_f{:03d}.xmf", spec.name, fi);
          io::publish_text_file(xmf, dft_xdmf_text(spec, model_, fi, file_for(spec).filename().string()));
          io::log_published(xmf);
        }
      });
  }
  xdmf_written_ = true;
}

std::string dft_xdmf_text(const DftSpec& spec, const Model& model, std::size_t f, const std::string& file) {
  const Index3 n{spec.region.extent(0), spec.region.extent(1), spec.region.extent(2)};
  const std::size_t nf = spec.spectrum.frequencies.size();
  std::string out =
      "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n <Domain>\n";
  out += fmt::format("  <Grid Name=\"{} f={} Hz\" GridType=\"Collection\" CollectionType=\"Spatial\">\n", spec.name,
                     spec.spectrum.frequencies[f]);
  for (int c : spec.components) {
    const auto o = origin_of(spec.region, c, model);
    out += fmt::format("   <Grid Name=\"{}\" GridType=\"Uniform\">\n", kComponentName[c]);
    out += fmt::format("    <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{} {} {}\"/>\n", n[2], n[1], n[0]);
    out += "    <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
    out += fmt::format("     <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">{} {} {}"
                       "</DataItem>\n",
                       o[2], o[1], o[0]);
    out += fmt::format("     <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">{} {} {}"
                       "</DataItem>\n",
                       model.cell_size[2], model.cell_size[1], model.cell_size[0]);
    out += "    </Geometry>\n";
    for (const char* part : {"_re", "_im"}) {
      out += fmt::format("    <Attribute Name=\"{}{}\" AttributeType=\"Scalar\" Center=\"Node\">\n", kComponentName[c],
                         part);
      out += fmt::format("     <DataItem ItemType=\"HyperSlab\" Dimensions=\"{} {} {}\" Type=\"HyperSlab\">\n", n[2],
                         n[1], n[0]);
      out += fmt::format("      <DataItem Dimensions=\"3 4\" Format=\"XML\">{} 0 0 0 1 1 1 1 1 {} {} {}</DataItem>\n", f,
                         n[2], n[1], n[0]);
      out += fmt::format("      <DataItem Dimensions=\"{} {} {} {}\" NumberType=\"Float\" Precision=\"8\" "
                         "Format=\"HDF\">{}:/{}{}</DataItem>\n",
                         nf, n[2], n[1], n[0], file, kComponentName[c], part);
      out += "     </DataItem>\n    </Attribute>\n";
    }
    out += "   </Grid>\n";
  }
  out += "  </Grid>\n </Domain>\n</Xdmf>\n";
  return out;
}

}  // namespace tessera::fdtd
