#include "solvers/fdtd/spectra_io.hpp"

#include <vector>

#include "io/checked_io.hpp"
#include "io/checksum.hpp"
#include "io/units.hpp"

namespace tessera::fdtd {
namespace {

io::detail::Selection selection(std::int64_t d0, const Box& array, const Box& box) {
  const auto u = [](std::int64_t v) { return static_cast<hsize_t>(v); };
  io::detail::Selection sel;
  sel.global = {u(d0), u(array.extent(2)), u(array.extent(1)), u(array.extent(0))};
  if (box.empty()) {
    sel.start = {0, 0, 0, 0};
    sel.count = {0, 0, 0, 0};
  } else {
    sel.start = {0, u(box.lo[2] - array.lo[2]), u(box.lo[1] - array.lo[1]), u(box.lo[0] - array.lo[0])};
    sel.count = {u(d0), u(box.extent(2)), u(box.extent(1)), u(box.extent(0))};
  }
  sel.mem_dims = sel.count;
  sel.mem_start = {0, 0, 0, 0};
  return sel;
}

// The checksum of this rank's part: each x row is one run at its global element index.
std::uint64_t part_checksum(std::span<const double> local, std::int64_t d0, const Box& array, const Box& box) {
  std::uint64_t part = 0;
  if (box.empty()) return part;
  const std::int64_t gx = array.extent(0), gy = array.extent(1), gz = array.extent(2);
  const std::int64_t ex = box.extent(0), ey = box.extent(1), ez = box.extent(2);
  const std::int64_t ox = box.lo[0] - array.lo[0], oy = box.lo[1] - array.lo[1], oz = box.lo[2] - array.lo[2];
  for (std::int64_t d = 0; d < d0; ++d)
    for (std::int64_t k = 0; k < ez; ++k)
      for (std::int64_t j = 0; j < ey; ++j) {
        const std::int64_t first = ((d * gz + oz + k) * gy + oy + j) * gx + ox;
        part += io::checksum_bytes(local.data() + ((d * ez + k) * ey + j) * ex, ex, sizeof(double), first);
      }
  return part;
}

}  // namespace

io::Dataset write_block_4d(const io::Group& g, const std::string& name, std::span<const double> local,
                           std::int64_t d0, const Box& array, const Box& box) {
  io::Dataset d = io::detail::write_selection(g, name, io::ElementType::float64, local.data(), local.size(),
                                              selection(d0, array, box));
  io::detail::record_checksum(d, part_checksum(local, d0, array, box));
  return d;
}

void read_block_4d(const io::Group& g, const std::string& name, std::span<double> local, std::int64_t d0,
                   const Box& array, const Box& box) {
  io::detail::read_selection(g, name, io::ElementType::float64, local.data(), local.size(), selection(d0, array, box));
  io::detail::verify_checksum(g, name, part_checksum(local, d0, array, box));
}

void write_monitor(const io::Group& g, const std::string& prefix, const DftMonitor& m, Engine& engine) {
  const std::size_t nf = m.spectrum->frequencies.size();
  for (const DftBlock& b : m.blocks) {
    const std::vector<double> acc = Spectra::download(b, nf, engine);
    io::write_units(
        write_block_4d(g, prefix + kComponentName[b.component], acc, 2 * std::int64_t(nf), b.array, b.global),
        b.component < kHx ? "V s/m" : "A s/m");
  }
}

void read_monitor(const io::Group& g, const std::string& prefix, const DftMonitor& m, Engine& engine) {
  const std::size_t nf = m.spectrum->frequencies.size();
  for (const DftBlock& b : m.blocks) {
    std::vector<double> acc(static_cast<std::size_t>(b.elements(nf)));
    read_block_4d(g, prefix + kComponentName[b.component], acc, 2 * std::int64_t(nf), b.array, b.global);
    Spectra::upload(b, nf, engine, acc);
  }
}

}  // namespace tessera::fdtd
