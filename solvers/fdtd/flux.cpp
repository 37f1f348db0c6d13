#include "solvers/fdtd/flux.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "comm/collectives.hpp"
#include "comm/errors.hpp"
#include "core/error.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"
#include "io/published.hpp"
#include "solvers/fdtd/spectra_io.hpp"

namespace tessera::fdtd {
namespace {

constexpr int kTop = 30, kLimb = 40;  // bits of the top limb and of the two lower ones
constexpr std::int64_t kNormaliseEvery = std::int64_t(1) << 20;
constexpr const char* kAxis[3] = {"x", "y", "z"};

std::int64_t floor_div(std::int64_t a, int bits) { return a >> bits; }  // arithmetic shift: floor

}  // namespace

ExactSum::ExactSum(double max_abs) {
  if (max_abs > 0 && std::isfinite(max_abs)) {
    exponent_ = std::ilogb(max_abs) + 1;
    zero_ = false;
  }
}

void ExactSum::add(double term) {
  if (zero_) return;
  const double x = std::ldexp(term, kTop - exponent_);  // |x| < 2^kTop
  const double a0 = std::trunc(x);
  const double x1 = std::ldexp(x - a0, kLimb);
  const double a1 = std::trunc(x1);
  const double a2 = std::trunc(std::ldexp(x1 - a1, kLimb));
  limb_[0] += static_cast<std::int64_t>(a0);
  limb_[1] += static_cast<std::int64_t>(a1);
  limb_[2] += static_cast<std::int64_t>(a2);
  if (++count_ % kNormaliseEvery == 0) normalise();
}

void ExactSum::normalise() {
  // Carries upwards so the lower limbs lie in [0, 2^kLimb): one representation per integer.
  for (int l = 2; l > 0; --l) {
    const std::int64_t carry = floor_div(limb_[l], kLimb);
    limb_[l] -= carry * (std::int64_t(1) << kLimb);
    limb_[l - 1] += carry;
  }
}

std::vector<double> ExactSum::allreduce(comm::Context* ctx, std::vector<ExactSum>& sums) {
  std::vector<std::int64_t> limbs;
  for (ExactSum& s : sums) {
    s.normalise();
    limbs.insert(limbs.end(), s.limb_, s.limb_ + 3);
  }
  if (ctx) comm::allreduce_inplace(*ctx, std::span<std::int64_t>(limbs), comm::Op::sum);
  std::vector<double> out(sums.size(), 0.0);
  for (std::size_t i = 0; i < sums.size(); ++i) {
    ExactSum& s = sums[i];
    std::copy_n(limbs.begin() + static_cast<std::ptrdiff_t>(3 * i), 3, s.limb_);
    s.normalise();
    if (s.zero_) continue;
    const double low = std::ldexp(double(s.limb_[2]), -kLimb) + double(s.limb_[1]);
    out[i] = std::ldexp(std::ldexp(low, -kLimb) + double(s.limb_[0]), s.exponent_ - kTop);
  }
  return out;
}

std::vector<double> flux_spectrum(comm::Context* ctx, const Model& model, std::size_t i, const DftMonitor& m,
                                  Engine& engine, const FluxReference* minus) {
  const FluxSpec& spec = model.fluxes.at(i);
  const std::size_t nf = spec.spectrum.frequencies.size();
  std::vector<std::vector<double>> acc(4);
  for (int c = 0; c < 4; ++c) {
    acc[c] = Spectra::download(m.blocks[c], nf, engine);
    if (minus)
      for (std::size_t e = 0; e < acc[c].size(); ++e) acc[c][e] -= minus->blocks[c][e];
  }
  // Per frequency and transverse cell: Re(E_p <H_q>*) - Re(E_q <H_p>*), H averaged over the
  // layers below (0) and above (1) the plane.
  const std::int64_t cells = m.blocks[0].global.cells();  // E: one layer
  std::vector<double> terms(nf * static_cast<std::size_t>(cells));
  std::vector<double> max_abs(nf, 0.0);
  if (cells > 0) {
    const Box& e = m.blocks[0].global;
    const int a = spec.axis;
    // The H block has the E block's cells with two layers along a (below, above the plane).
    std::int64_t hext[3] = {e.extent(0), e.extent(1), e.extent(2)};
    hext[a] = 2;
    const auto hat = [&](std::int64_t x, std::int64_t y, std::int64_t z, std::int64_t layer) {
      std::int64_t j[3] = {x, y, z};
      j[a] = layer;
      return (j[2] * hext[1] + j[1]) * hext[0] + j[0];
    };
    const std::int64_t hcells = 2 * cells;
    for (std::size_t f = 0; f < nf; ++f) {
      const double* ep = acc[0].data() + 2 * f * cells;
      const double* eq = acc[1].data() + 2 * f * cells;
      const double* hp = acc[2].data() + 2 * f * hcells;
      const double* hq = acc[3].data() + 2 * f * hcells;
      for (std::int64_t z = 0; z < e.extent(2); ++z)
        for (std::int64_t y = 0; y < e.extent(1); ++y)
          for (std::int64_t x = 0; x < e.extent(0); ++x) {
            const std::int64_t c = (z * e.extent(1) + y) * e.extent(0) + x;
            const std::int64_t h0 = hat(x, y, z, 0), h1 = hat(x, y, z, 1);
            const double hq_re = 0.5 * (hq[h0] + hq[h1]), hq_im = 0.5 * (hq[hcells + h0] + hq[hcells + h1]);
            const double hp_re = 0.5 * (hp[h0] + hp[h1]), hp_im = 0.5 * (hp[hcells + h0] + hp[hcells + h1]);
            const double t = (ep[c] * hq_re + ep[cells + c] * hq_im) - (eq[c] * hp_re + eq[cells + c] * hp_im);
            terms[f * static_cast<std::size_t>(cells) + static_cast<std::size_t>(c)] = t;
            max_abs[f] = std::max(max_abs[f], std::abs(t));
          }
    }
  }
  if (ctx) comm::allreduce_inplace(*ctx, std::span<double>(max_abs), comm::Op::max);
  std::vector<ExactSum> sums;
  for (std::size_t f = 0; f < nf; ++f) {
    sums.emplace_back(max_abs[f]);
    for (std::int64_t c = 0; c < cells; ++c) sums.back().add(terms[f * static_cast<std::size_t>(cells) + c]);
  }
  std::vector<double> flux = ExactSum::allreduce(ctx, sums);
  const int p = (spec.axis + 1) % 3, q = (spec.axis + 2) % 3;
  const double scale = 0.5 * spec.weight * model.cell_size[p] * model.cell_size[q];
  for (double& v : flux) v *= scale;
  return flux;
}

FluxLog::FluxLog(comm::Context& ctx, std::filesystem::path file, const Model& model, io::Provenance provenance,
                 Stepper& stepper)
    : ctx_(ctx), file_(std::move(file)), model_(model), provenance_(std::move(provenance)) {
  minus_.resize(model_.fluxes.size());
  for (std::size_t i = 0; i < model_.fluxes.size(); ++i) {
    const FluxSpec& spec = model_.fluxes[i];
    if (spec.subtract.empty()) continue;
    const DftMonitor& m = stepper.spectra().fluxes()[i];
    const std::filesystem::path path = spec.subtract;
    bool exists = false;
    comm::agree(ctx_, [&] {
      if (ctx_.is_root()) exists = std::filesystem::exists(path);
    });
    if (comm::broadcast_value(ctx_, exists ? 1 : 0) == 0)
      throw comm::AgreedInputError(0, fmt::format("fdtd.flux \"{}\": subtract = \"{}\" does not exist (run the "
                                                  "empty deck first; the path is relative to the working directory)",
                                                  spec.name, spec.subtract));
    auto ref = std::make_unique<FluxReference>();
    comm::agree(ctx_, [&] {
      const io::File f = io::File::open(ctx_, path);
      const io::Group root = f.root();
      const std::string table = spec.name;
      const auto mismatch = [&](const std::string& what) {
        return InputError(fmt::format("fdtd.flux \"{}\": subtract = \"{}\" does not match this plane: {}", spec.name,
                                      spec.subtract, what));
      };
      if (!root.exists(table) || !root.exists("dft/" + spec.name)) throw mismatch("it has no flux plane of that name");
      const auto freqs = io::TimeSeries::open(root, table).read_column("frequency");
      if (freqs != spec.spectrum.frequencies) throw mismatch("other frequencies");
      const auto cells = io::read_attribute<std::vector<std::int64_t>>(root.open_dataset(table), "cells");
      const auto first = io::read_attribute<std::vector<std::int64_t>>(root.open_dataset(table), "first_cell");
      const auto last = io::read_attribute<std::vector<std::int64_t>>(root.open_dataset(table), "end_cell");
      if (cells != std::vector<std::int64_t>(model_.cells.begin(), model_.cells.end()) ||
          first != std::vector<std::int64_t>(spec.region.lo.begin(), spec.region.lo.end()) ||
          last != std::vector<std::int64_t>(spec.region.hi.begin(), spec.region.hi.end()))
        throw mismatch("another grid or another plane");
      const io::Group g = root.open_group("dft/" + spec.name);
      const std::size_t nf = spec.spectrum.frequencies.size();
      for (const DftBlock& b : m.blocks) {
        std::vector<double> acc(static_cast<std::size_t>(b.elements(nf)));
        read_block_4d(g, kComponentName[b.component], acc, 2 * std::int64_t(nf), b.array, b.global);
        ref->blocks.push_back(std::move(acc));
      }
    });
    minus_[i] = std::move(ref);
  }
}

void FluxLog::write(Stepper& stepper) {
  if (model_.fluxes.empty()) return;
  Engine& engine = stepper.engine();
  io::OutputFile f(ctx_, file_);
  const io::Group& root = f.root();
  io::write_provenance(root, provenance_);
  std::vector<std::string> names;
  for (const FluxSpec& spec : model_.fluxes) names.push_back(spec.name);
  io::write_attribute(root, "planes", names);
  for (std::size_t i = 0; i < model_.fluxes.size(); ++i) {
    const FluxSpec& spec = model_.fluxes[i];
    const DftMonitor& m = stepper.spectra().fluxes()[i];
    const std::vector<double> flux = flux_spectrum(&ctx_, model_, i, m, engine, minus_[i].get());
    std::vector<double> rows;
    for (std::size_t k = 0; k < flux.size(); ++k) {
      rows.push_back(spec.spectrum.frequencies[k]);
      rows.push_back(flux[k]);
    }
    {
      io::TimeSeries t = io::TimeSeries::create(root, spec.name, {{"frequency", "Hz"}, {"flux", "J/Hz"}});
      t.append_rows(rows);
      const io::Dataset& d = t.dataset();
      io::write_attribute(d, "step", stepper.steps());
      io::write_attribute(d, "time", stepper.time());
      io::write_attribute(d, "axis", kAxis[spec.axis]);
      io::write_attribute(d, "position", double(spec.layer) * model_.cell_size[spec.axis]);
      io::write_attribute(d, "weight", spec.weight);
      io::write_attribute(d, "subtracted", spec.subtract);
      io::write_attribute(d, "cells", std::vector<std::int64_t>(model_.cells.begin(), model_.cells.end()));
      io::write_attribute(d, "first_cell", std::vector<std::int64_t>(spec.region.lo.begin(), spec.region.lo.end()));
      io::write_attribute(d, "end_cell", std::vector<std::int64_t>(spec.region.hi.begin(), spec.region.hi.end()));
    }
    write_monitor(root.create_group("dft/" + spec.name), "", m, engine);
  }
  io::log_published(f.commit());
}

}  // namespace tessera::fdtd
