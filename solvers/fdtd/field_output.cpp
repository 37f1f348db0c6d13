#include "solvers/fdtd/field_output.hpp"

#include <fmt/format.h>

#include <optional>
#include <algorithm>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"
#include "io/checked_io.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"

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

}  // namespace

FieldWriter::FieldWriter(comm::Context& ctx, std::filesystem::path dir, const Model& model, const LocalDomain& domain,
                         io::Provenance provenance)
    : ctx_(ctx), dir_(std::move(dir)), model_(model), domain_(domain), provenance_(std::move(provenance)) {
  for (const VolumeSpec& v : model_.volumes) {
    Series s;
    s.spec = &v;
    const Index3 samples = v.samples();
    for (int a = 0; a < 3; ++a) {
      local_samples(v.region.lo[a], v.stride[a], samples[a], domain_.offset[a], domain_.offset[a] + domain_.n[a],
                    s.local_first[a], s.local_count[a]);
    }
    if (s.local_count[0] * s.local_count[1] * s.local_count[2] == 0) s.local_first = s.local_count = {0, 0, 0};
    s.xdmf.name = v.name;
    s.xdmf.components = v.components;
    s.xdmf.samples = samples;
    s.xdmf.cell_size = model_.cell_size;
    s.xdmf.first_cell = v.region.lo;
    s.xdmf.stride = v.stride;
    series_.push_back(std::move(s));
  }
}

std::filesystem::path FieldWriter::file_for(const VolumeSpec& v, std::int64_t step) const {
  return dir_ / fmt::format("{}_{:08d}.h5", v.name, step);
}

void FieldWriter::write(Stepper& stepper) {
  const std::int64_t step = stepper.steps();
  const double t = stepper.time();
  Engine& engine = stepper.engine();
  const Layout& layout = engine.layout();
  // Each component needed by any volume is copied to the host once.
  std::vector<std::vector<float>> host(kComponents);
  for (const Series& s : series_)
    for (int c : s.spec->components)
      if (host[c].empty()) {
        host[c].resize(static_cast<std::size_t>(layout.elements()));
        engine.download(c, host[c]);
      }

  for (Series& s : series_) {
    const VolumeSpec& v = *s.spec;
    const std::filesystem::path final_path = file_for(v, step);
    {
      // Published only whole: written as final_path.tmp, read back and verified, renamed.
      io::OutputFile f(ctx_, final_path);
      const io::Group& root = f.root();
      const io::Box3 box{s.xdmf.samples, s.local_first, s.local_count};
      std::vector<float> dense(static_cast<std::size_t>(box.volume()));
      for (int c : v.components) {
        std::size_t at = 0;
        for (std::int64_t k = 0; k < box.size[2]; ++k)
          for (std::int64_t j = 0; j < box.size[1]; ++j)
            for (std::int64_t i = 0; i < box.size[0]; ++i) {
              const std::int64_t gi = v.region.lo[0] + (s.local_first[0] + i) * v.stride[0] - domain_.offset[0];
              const std::int64_t gj = v.region.lo[1] + (s.local_first[1] + j) * v.stride[1] - domain_.offset[1];
              const std::int64_t gk = v.region.lo[2] + (s.local_first[2] + k) * v.stride[2] - domain_.offset[2];
              dense[at++] = host[c][static_cast<std::size_t>(layout.at(gi, gj, gk))];
            }
        io::write_units(io::write_3d_checked<float>(root, kComponentName[c], dense, box, io::Strided3::dense(box.size)),
                        kComponentUnits[c]);
      }
      io::write_provenance(root, provenance_);
      io::write_attribute(root, "step", step);
      io::write_attribute(root, "time", t);
      io::write_attribute(root, "time_h", t - 0.5 * model_.dt);
      io::write_attribute(root, "dt", model_.dt);
      io::write_attribute(root, "cell_size", std::vector<double>(model_.cell_size.begin(), model_.cell_size.end()));
      io::write_attribute(root, "first_cell", std::vector<std::int64_t>(v.region.lo.begin(), v.region.lo.end()));
      io::write_attribute(root, "stride", std::vector<std::int64_t>(v.stride.begin(), v.stride.end()));
      f.commit();
    }
    auto& steps = s.xdmf.steps;
    while (!steps.empty() && steps.back().step >= step) steps.pop_back();
    steps.push_back({step, t, final_path.filename().string()});
    comm::agree(ctx_, [&] {
      if (ctx_.is_root()) write_xdmf(s);
    });
  }
}

void FieldWriter::write_xdmf(const Series& s) const {
  io::publish_text_file(dir_ / (s.spec->name + ".xmf"), xdmf_text(s.xdmf));
}

void FieldWriter::resume(std::int64_t step) {
  // Only rank 0 writes the .xmf, so only it needs the list of earlier outputs.
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
          if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
          const std::int64_t st = std::stoll(digits);
          if (st <= step) found.push_back(st);
        }
      std::sort(found.begin(), found.end());
      for (std::int64_t st : found)
        s.xdmf.steps.push_back({st, double(st) * model_.dt, file_for(*s.spec, st).filename().string()});
    }
  });
}

}  // namespace tessera::fdtd
