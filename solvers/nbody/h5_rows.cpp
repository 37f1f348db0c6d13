#include "solvers/nbody/h5_rows.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "io/checked_io.hpp"

namespace tessera::nbody {
namespace {

template <class From, class To>
std::vector<To> convert(const std::vector<From>& in) {
  return std::vector<To>(in.begin(), in.end());
}

}  // namespace

template <class T>
void write_rows3(const io::Group& g, std::string_view name, std::span<const T> local, std::int64_t offset,
                 std::int64_t total) {
  io::write_rows_checked<T>(g, name, local, 3, offset, total);  // verified before the file is published
}

template <class T>
std::vector<T> read_rows3(const io::Group& g, std::string_view name, std::int64_t offset, std::int64_t count) {
  // Other codes write float32 or float64 coordinates: read what is there, convert to T.
  switch (io::dataset_element_type(g, name)) {  // InputError naming it when missing
    case io::ElementType::float32: return convert<float, T>(io::read_rows<float>(g, name, offset, count, 3));
    case io::ElementType::float64: return convert<double, T>(io::read_rows<double>(g, name, offset, count, 3));
    default: {
      const io::Dataset d = g.open_dataset(name);
      throw InputError(fmt::format("dataset {} in {} has type {}, expected float32 or float64", d.name(),
                                   d.file_name(), io::to_string(d.element_type())));
    }
  }
}

template <class T>
std::vector<T> read_1d_as(const io::Group& g, std::string_view name, std::int64_t offset, std::int64_t count) {
  const io::Dataset d = g.open_dataset(name);
  switch (d.element_type()) {
    case io::ElementType::float32: return convert<float, T>(io::read_1d<float>(g, name, offset, count));
    case io::ElementType::float64: return convert<double, T>(io::read_1d<double>(g, name, offset, count));
    case io::ElementType::int32: return convert<std::int32_t, T>(io::read_1d<std::int32_t>(g, name, offset, count));
    case io::ElementType::uint32: return convert<std::uint32_t, T>(io::read_1d<std::uint32_t>(g, name, offset, count));
    case io::ElementType::int64: return convert<std::int64_t, T>(io::read_1d<std::int64_t>(g, name, offset, count));
    case io::ElementType::uint64: return convert<std::uint64_t, T>(io::read_1d<std::uint64_t>(g, name, offset, count));
    default:
      throw InputError(fmt::format("dataset {} in {} has type {}, expected a number", d.name(), d.file_name(),
                                   io::to_string(d.element_type())));
  }
}

template void write_rows3<float>(const io::Group&, std::string_view, std::span<const float>, std::int64_t, std::int64_t);
template void write_rows3<double>(const io::Group&, std::string_view, std::span<const double>, std::int64_t,
                                  std::int64_t);
template std::vector<float> read_rows3<float>(const io::Group&, std::string_view, std::int64_t, std::int64_t);
template std::vector<double> read_rows3<double>(const io::Group&, std::string_view, std::int64_t, std::int64_t);
template std::vector<float> read_1d_as<float>(const io::Group&, std::string_view, std::int64_t, std::int64_t);
template std::vector<double> read_1d_as<double>(const io::Group&, std::string_view, std::int64_t, std::int64_t);
template std::vector<std::uint64_t> read_1d_as<std::uint64_t>(const io::Group&, std::string_view, std::int64_t,
                                                            std::int64_t);

}  // namespace tessera::nbody
