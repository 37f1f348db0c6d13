#include "solvers/spmv/vectors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "core/error.hpp"
#include "io/agree.hpp"
#include "io/h5.hpp"
#include "solvers/spmv/random.hpp"

namespace tessera::spmv {

std::string VectorSpec::describe() const {
  switch (source) {
    case VectorSource::ones: return "ones";
    case VectorSource::random: return fmt::format("random uniform in [{}, {}) seed {}", low, high, seed);
    case VectorSource::random_integers: return fmt::format("random integers in [{}, {}] seed {}", low, high, seed);
    default: return fmt::format("file {} dataset {}", file, dataset);
  }
}

double generated_entry(const VectorSpec& s, std::int64_t i) {
  const std::uint64_t bits = random_bits(s.seed, 11, static_cast<std::uint64_t>(i));
  switch (s.source) {
    case VectorSource::random: return s.low + (s.high - s.low) * uniform01(bits);
    case VectorSource::random_integers: {
      const double span = s.high - s.low + 1.0;
      return std::min(s.high, s.low + std::floor(uniform01(bits) * span));
    }
    default: return 1.0;
  }
}

template <class T>
std::vector<T> make_vector(comm::Context& ctx, const VectorSpec& s, Range r, std::int64_t n, std::string_view what) {
  std::vector<T> out(static_cast<std::size_t>(r.count));
  if (s.source != VectorSource::file) {
    for (std::int64_t i = 0; i < r.count; ++i) out[i] = static_cast<T>(generated_entry(s, r.begin + i));
    return out;
  }
  const io::File f = io::File::open(ctx, s.file);
  const io::Group root = f.root();
  io::ElementType type = io::ElementType::other;
  io::agree_input(ctx, [&] {
    if (!root.exists(s.dataset))
      throw InputError(fmt::format("{}: {} has no dataset {} (the vector {})", s.where_file, s.file, s.dataset, what));
    const auto extent = io::dataset_extent(root, s.dataset);
    if (extent.size() != 1 || extent[0] != n)
      throw InputError(fmt::format("{}: dataset {} in {} has shape [{}], but {} needs {} entries", s.where_file,
                                   s.dataset, s.file, fmt::join(extent, ", "), what, n));
    type = io::dataset_element_type(root, s.dataset);
    if (type != io::ElementType::float64 && type != io::ElementType::float32)
      throw InputError(fmt::format("{}: dataset {} in {} holds {}; the vector {} is read from float64 or float32",
                                   s.where_file, s.dataset, s.file, io::to_string(type), what));
  });
  if (type == io::ElementType::float64) {
    const auto v = io::read_1d<double>(root, s.dataset, r.begin, r.count);
    for (std::int64_t i = 0; i < r.count; ++i) out[i] = static_cast<T>(v[i]);
  } else {
    const auto v = io::read_1d<float>(root, s.dataset, r.begin, r.count);
    for (std::int64_t i = 0; i < r.count; ++i) out[i] = static_cast<T>(v[i]);
  }
  io::agree_input(ctx, [&] {
    for (std::int64_t i = 0; i < r.count; ++i)
      if (!std::isfinite(static_cast<double>(out[i])))
        throw InputError(fmt::format("{}: dataset {} in {}: entry {} is {}; the vector {} must be finite", s.where_file,
                                     s.dataset, s.file, r.begin + i, static_cast<double>(out[i]), what));
  });
  return out;
}

template std::vector<float> make_vector<float>(comm::Context&, const VectorSpec&, Range, std::int64_t, std::string_view);
template std::vector<double> make_vector<double>(comm::Context&, const VectorSpec&, Range, std::int64_t, std::string_view);

}  // namespace tessera::spmv
