#include "io/h5_dataset.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "comm/collectives.hpp"
#include "io/agree.hpp"

namespace tessera::io {
namespace detail {
namespace {

std::string dims_text(const std::vector<hsize_t>& d) { return fmt::format("[{}]", fmt::join(d, ", ")); }

bool is_empty_extent(const std::vector<hsize_t>& dims) {
  return std::any_of(dims.begin(), dims.end(), [](hsize_t d) { return d == 0; });
}

bool transfers_nothing(const Selection& s) {
  return std::any_of(s.count.begin(), s.count.end(), [](hsize_t c) { return c == 0; });
}

// Problems with this rank's arguments, or "" when they are fine. Values were converted from
// signed integers, so a negative input shows up as a huge value and fails the bounds checks.
std::string check_selection(const Selection& s, std::size_t data_elements) {
  const std::size_t n = s.global.size();
  if (s.start.size() != n || s.count.size() != n || s.mem_dims.size() != n || s.mem_start.size() != n)
    return "selection ranks differ";
  constexpr hsize_t limit = hsize_t{1} << 62;
  for (std::size_t a = 0; a < n; ++a) {
    if (s.global[a] >= limit || s.start[a] >= limit || s.count[a] >= limit || s.mem_dims[a] >= limit ||
        s.mem_start[a] >= limit)
      return "a negative or absurdly large size or offset";
  }
  if (transfers_nothing(s)) return {};
  hsize_t mem_elements = 1;
  for (std::size_t a = 0; a < n; ++a) {
    if (s.start[a] + s.count[a] > s.global[a])
      return fmt::format("block at {} of size {} exceeds the global extent {}", dims_text(s.start),
                         dims_text(s.count), dims_text(s.global));
    if (s.mem_start[a] + s.count[a] > s.mem_dims[a])
      return fmt::format("block of size {} at {} exceeds the local array {}", dims_text(s.count),
                         dims_text(s.mem_start), dims_text(s.mem_dims));
    mem_elements *= s.mem_dims[a];
  }
  if (data_elements < mem_elements)
    return fmt::format("local buffer holds {} elements, its layout {} needs {}", data_elements,
                       dims_text(s.mem_dims), mem_elements);
  return {};
}

// Checks on every rank that all passed the same name, type and global extent (one allreduce
// of a hash and its complement: max(h) == ~max(~h) exactly when min(h) == max(h)).
bool same_on_all_ranks(comm::Context& ctx, std::string_view name, ElementType type, const std::vector<hsize_t>& g) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  auto mix = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xffu;
      h *= 0x100000001b3ull;
    }
  };
  for (char c : name) mix(static_cast<unsigned char>(c));
  mix(static_cast<std::uint64_t>(type));
  for (hsize_t d : g) mix(d);
  std::array<std::uint64_t, 2> v{h, ~h};
  comm::allreduce_inplace(ctx, std::span<std::uint64_t>(v), comm::Op::max);
  return v[0] == ~v[1];
}

Handle collective_transfer_list(const Group& g, const std::string& full) {
  Handle dxpl(check_id(H5Pcreate(H5P_DATASET_XFER), "create a transfer list for", full, g.file_name()));
  check_status(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "set collective transfer for", full, g.file_name());
  return dxpl;
}

// Selects this rank's block in the file space and in a memory space; none when empty.
void select(const Selection& s, hid_t file_space, Handle& mem_space, const Group& g, const std::string& full) {
  const int rank = static_cast<int>(s.global.size());
  if (transfers_nothing(s)) {
    const hsize_t one[1] = {1};
    mem_space = Handle(check_id(H5Screate_simple(1, one, nullptr), "create a memory space for", full, g.file_name()));
    check_status(H5Sselect_none(file_space), "select nothing in", full, g.file_name());
    check_status(H5Sselect_none(mem_space), "select nothing in memory for", full, g.file_name());
    return;
  }
  check_status(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, s.start.data(), nullptr, s.count.data(), nullptr),
               "select a block of", full, g.file_name());
  mem_space =
      Handle(check_id(H5Screate_simple(rank, s.mem_dims.data(), nullptr), "create a memory space for", full,
                      g.file_name()));
  check_status(H5Sselect_hyperslab(mem_space, H5S_SELECT_SET, s.mem_start.data(), nullptr, s.count.data(), nullptr),
               "select a memory block for", full, g.file_name());
}

Dataset create_or_reuse(const Group& g, const std::string& full, ElementType type, const Selection& s) {
  if (g.exists(full)) {
    Dataset d = g.open_dataset(full);
    const ElementType have = d.element_type();
    const std::vector<std::int64_t> ext = d.extent();
    const std::vector<hsize_t> extent(ext.begin(), ext.end());
    if (have != type || extent != s.global)
      throw InputError(fmt::format("dataset {} in {} exists as {} {}, cannot write {} {} over it", full,
                                   g.file_name(), to_string(have), dims_text(extent), to_string(type),
                                   dims_text(s.global)));
    return d;
  }
  const int rank = static_cast<int>(s.global.size());
  Handle space(check_id(H5Screate_simple(rank, s.global.data(), nullptr), "create the dataspace of", full,
                        g.file_name()));
  Handle dcpl(check_id(H5Pcreate(H5P_DATASET_CREATE), "create a creation list for", full, g.file_name()));
  if (!s.chunk.empty()) {
    std::vector<hsize_t> chunk(s.chunk);
    for (std::size_t a = 0; a < chunk.size(); ++a) chunk[a] = std::clamp<hsize_t>(chunk[a], 1, std::max<hsize_t>(s.global[a], 1));
    check_status(H5Pset_chunk(dcpl, rank, chunk.data()), "set chunking of", full, g.file_name());
  }
  // Every element is written by some rank; skip writing fill values first.
  check_status(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "set the fill time of", full, g.file_name());
  Handle lcpl(check_id(H5Pcreate(H5P_LINK_CREATE), "create a link list for", full, g.file_name()));
  check_status(H5Pset_create_intermediate_group(lcpl, 1), "set intermediate groups for", full, g.file_name());
  Handle d(check_id(H5Dcreate2(g.id(), full.c_str(), native_type(type), space, lcpl, dcpl, H5P_DEFAULT),
                    "create dataset", full, g.file_name()));
  return Dataset(std::move(d), g.context(), g.file_name(), full);
}

// Agrees on the outcome of a collective transfer, so a rank whose part failed does not leave
// the others waiting in the next collective call.
void agree_transfer(const Group& g, herr_t rc, std::string_view action, const std::string& full) {
  agree_input(g.context(), [&] {
    if (rc < 0) throw_h5(action, full, g.file_name());
  });
}

}  // namespace

Selection selection_1d(std::int64_t offset, std::int64_t count, std::int64_t global, std::int64_t chunk) {
  Selection s;
  if (global >= 0) s.global = {static_cast<hsize_t>(global)};  // unknown (-1): the reader fills it in
  s.start = {static_cast<hsize_t>(offset)};
  s.count = {static_cast<hsize_t>(count)};
  s.mem_dims = {static_cast<hsize_t>(count)};
  s.mem_start = {0};
  if (chunk > 0) s.chunk = {static_cast<hsize_t>(chunk)};
  return s;
}

Selection selection_rows(std::int64_t offset, std::int64_t count, std::int64_t columns, std::int64_t global) {
  Selection s;
  if (global >= 0) s.global = {static_cast<hsize_t>(global), static_cast<hsize_t>(columns)};
  s.start = {static_cast<hsize_t>(offset), 0};
  s.count = {static_cast<hsize_t>(count), static_cast<hsize_t>(columns)};
  s.mem_dims = s.count;
  s.mem_start = {0, 0};
  return s;
}

std::int64_t rows_of(const Group& g, std::string_view name, std::int64_t columns) {
  const Dataset d = g.open_dataset(name);  // InputError naming it when missing
  const std::vector<std::int64_t> extent = d.extent();
  if (extent.size() != 2 || extent[1] != columns)
    throw InputError(fmt::format("dataset {} in {} has extent {}, expected (N, {})", d.name(), d.file_name(),
                                 dims_text(std::vector<hsize_t>(extent.begin(), extent.end())), columns));
  return extent[0];
}

Selection selection_3d(const Box3& box, const Strided3& mem, const Index3& chunk) {
  // File and memory spaces are slowest first: (z, y, x).
  auto zyx = [](const Index3& v) {
    return std::vector<hsize_t>{static_cast<hsize_t>(v[2]), static_cast<hsize_t>(v[1]), static_cast<hsize_t>(v[0])};
  };
  Selection s;
  s.global = zyx(box.global);
  s.start = zyx(box.offset);
  s.count = zyx(box.size);
  s.mem_dims = zyx(mem.dims);
  s.mem_start = zyx(mem.start);
  if (chunk[0] > 0 && chunk[1] > 0 && chunk[2] > 0) s.chunk = zyx(chunk);
  return s;
}

Dataset write_selection(const Group& g, std::string_view name, ElementType type, const void* data,
                        std::size_t data_elements, const Selection& sel) {
  const std::string full = g.path_of(name);
  const bool consistent = same_on_all_ranks(g.context(), full, type, sel.global);
  agree_input(g.context(), [&] {
    if (!consistent)
      throw std::invalid_argument(
          fmt::format("writing dataset {} in {}: ranks disagree on its name, type or global extent", full,
                      g.file_name()));
    const std::string problem = check_selection(sel, data_elements);
    if (!problem.empty())
      throw std::invalid_argument(fmt::format("writing dataset {} in {}: {}", full, g.file_name(), problem));
  });

  Dataset d = create_or_reuse(g, full, type, sel);
  if (is_empty_extent(sel.global)) return d;  // no storage to write to (HDF5 would fail)
  Handle file_space(check_id(H5Dget_space(d.id()), "read the dataspace of", full, g.file_name()));
  Handle mem_space;
  select(sel, file_space, mem_space, g, full);
  Handle dxpl = collective_transfer_list(g, full);
  static const std::uint64_t dummy = 0;  // HDF5 wants a buffer even when nothing is selected
  const void* buf = data ? data : &dummy;
  const herr_t rc = H5Dwrite(d.id(), native_type(type), mem_space, file_space, dxpl, buf);
  agree_transfer(g, rc, "write dataset", full);
  return d;
}

void read_selection(const Group& g, std::string_view name, ElementType type, void* data, std::size_t data_elements,
                    Selection sel) {
  const std::string full = g.path_of(name);
  Dataset d = g.open_dataset(full);
  d.require_type(type);
  const std::vector<std::int64_t> ext = d.extent();
  const std::vector<hsize_t> extent(ext.begin(), ext.end());
  if (sel.global.empty() && extent.size() == sel.start.size()) sel.global = extent;  // 1D: take the file's
  // Agreed: ranks may have been given different global shapes.
  agree_input(g.context(), [&] {
    if (extent != sel.global)
      throw InputError(fmt::format("dataset {} in {} has extent {}, expected {}", full, g.file_name(),
                                   dims_text(extent),
                                   sel.global.empty() ? std::string("1 dimension") : dims_text(sel.global)));
    const std::string problem = check_selection(sel, data_elements);
    if (problem.empty()) return;
    // Asking for elements the file does not have is a mismatch between file and run.
    const std::string msg = fmt::format("reading dataset {} in {}: {}", full, g.file_name(), problem);
    if (problem.find("global extent") != std::string::npos) throw InputError(msg);
    throw std::invalid_argument(msg);
  });

  if (is_empty_extent(sel.global)) return;
  Handle file_space(check_id(H5Dget_space(d.id()), "read the dataspace of", full, g.file_name()));
  Handle mem_space;
  select(sel, file_space, mem_space, g, full);
  Handle dxpl = collective_transfer_list(g, full);
  std::uint64_t dummy = 0;
  void* buf = data ? data : &dummy;
  const herr_t rc = H5Dread(d.id(), native_type(type), mem_space, file_space, dxpl, buf);
  agree_transfer(g, rc, "read dataset", full);
}

}  // namespace detail

std::vector<std::int64_t> dataset_extent(const Group& g, std::string_view name) {
  return g.open_dataset(name).extent();
}

ElementType dataset_element_type(const Group& g, std::string_view name) {
  return g.open_dataset(name).element_type();
}

void write_string(const Group& g, std::string_view name, std::string_view text) {
  const std::string full = g.path_of(name);
  if (g.exists(full)) g.unlink(full);
  Handle type = string_type(text.size());
  Handle space(detail::check_id(H5Screate(H5S_SCALAR), "create the dataspace of", full, g.file_name()));
  Handle lcpl(detail::check_id(H5Pcreate(H5P_LINK_CREATE), "create a link list for", full, g.file_name()));
  detail::check_status(H5Pset_create_intermediate_group(lcpl, 1), "set intermediate groups for", full,
                       g.file_name());
  Handle d(detail::check_id(H5Dcreate2(g.id(), full.c_str(), type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT),
                            "create dataset", full, g.file_name()));
  std::string buf(text);
  buf.resize(std::max<std::size_t>(text.size(), 1), '\0');
  // A scalar written by every rank with identical bytes; collective like every transfer here.
  Handle dxpl(detail::check_id(H5Pcreate(H5P_DATASET_XFER), "create a transfer list for", full, g.file_name()));
  detail::check_status(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "set collective transfer for", full,
                       g.file_name());
  const herr_t rc = H5Dwrite(d, type, H5S_ALL, H5S_ALL, dxpl, buf.data());
  agree_input(g.context(), [&] {
    if (rc < 0) detail::throw_h5("write dataset", full, g.file_name());
  });
}

std::string read_string(const Group& g, std::string_view name) {
  Dataset d = g.open_dataset(name);
  d.require_type(ElementType::string);
  Handle type(detail::check_id(H5Dget_type(d.id()), "read the type of", d.name(), g.file_name()));
  const htri_t is_vlen = H5Tis_variable_str(type);
  if (is_vlen < 0) detail::throw_h5("inspect the string type of", d.name(), g.file_name());
  if (is_vlen > 0)
    throw InputError(fmt::format("dataset {} in {} holds a variable-length string; tessera reads fixed-length ones",
                                 d.name(), g.file_name()));
  const std::size_t width = H5Tget_size(type);
  std::string buf(width, '\0');
  Handle dxpl(detail::check_id(H5Pcreate(H5P_DATASET_XFER), "create a transfer list for", d.name(), g.file_name()));
  detail::check_status(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "set collective transfer for", d.name(),
                       g.file_name());
  const herr_t rc = H5Dread(d.id(), type, H5S_ALL, H5S_ALL, dxpl, buf.data());
  agree_input(g.context(), [&] {
    if (rc < 0) detail::throw_h5("read dataset", d.name(), g.file_name());
  });
  buf.erase(std::find(buf.begin(), buf.end(), '\0'), buf.end());
  return buf;
}

}  // namespace tessera::io
