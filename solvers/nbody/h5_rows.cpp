#include "solvers/nbody/h5_rows.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"

namespace tessera::nbody {
namespace {

io::detail::Selection rows3(std::int64_t offset, std::int64_t count, std::int64_t total) {
  io::detail::Selection s;
  s.global = {static_cast<hsize_t>(total), 3};
  s.start = {static_cast<hsize_t>(offset), 0};
  s.count = {static_cast<hsize_t>(count), 3};
  s.mem_dims = {static_cast<hsize_t>(count), 3};
  s.mem_start = {0, 0};
  return s;
}

template <class From, class To>
std::vector<To> convert(const std::vector<From>& in) {
  return std::vector<To>(in.begin(), in.end());
}

}  // namespace

template <class T>
void write_rows3(const io::Group& g, std::string_view name, std::span<const T> local, std::int64_t offset,
                 std::int64_t total) {
  const auto rows = static_cast<std::int64_t>(local.size() / 3);
  io::detail::write_selection(g, name, io::element_type_of<T>(), local.data(), local.size(),
                              rows3(offset, rows, total));
}

template <class T>
std::vector<T> read_rows3(const io::Group& g, std::string_view name, std::int64_t offset, std::int64_t count) {
  const io::Dataset d = g.open_dataset(name);  // InputError naming it when missing
  const std::vector<std::int64_t> extent = d.extent();
  if (extent.size() != 2 || extent[1] != 3)
    throw InputError(fmt::format("dataset {} in {} has shape [{}], expected (N, 3)", d.name(), d.file_name(),
                                 fmt::join(extent, ", ")));
  const io::ElementType type = d.element_type();
  std::vector<T> out(static_cast<std::size_t>(count * 3));
  const auto sel = rows3(offset, count, extent[0]);
  if (type == io::element_type_of<T>()) {
    io::detail::read_selection(g, name, type, out.data(), out.size(), sel);
  } else if (type == io::ElementType::float32) {
    std::vector<float> tmp(out.size());
    io::detail::read_selection(g, name, type, tmp.data(), tmp.size(), sel);
    out = convert<float, T>(tmp);
  } else if (type == io::ElementType::float64) {
    std::vector<double> tmp(out.size());
    io::detail::read_selection(g, name, type, tmp.data(), tmp.size(), sel);
    out = convert<double, T>(tmp);
  } else {
    throw InputError(fmt::format("dataset {} in {} has type {}, expected float32 or float64", d.name(),
                                 d.file_name(), io::to_string(type)));
  }
  return out;
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
