#include "io/h5_file.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "io/agree.hpp"

namespace tessera::io {
namespace {

// The file access properties every tessera file is opened with.
Handle make_fapl(comm::Context& ctx, Mode mode, const std::string& file) {
  Handle fapl(detail::check_id(H5Pcreate(H5P_FILE_ACCESS), "create a file access list for", "", file));
  detail::check_status(H5Pset_fapl_mpio(fapl, ctx.world(), MPI_INFO_NULL), "set MPI-IO access for", "", file);
  // Metadata read once and broadcast, written by one rank: scales and keeps ranks in step.
  detail::check_status(H5Pset_all_coll_metadata_ops(fapl, true), "set collective metadata reads for", "", file);
  detail::check_status(H5Pset_coll_metadata_write(fapl, true), "set collective metadata writes for", "", file);
  // The file closes when its last object closes, in any destruction order.
  detail::check_status(H5Pset_fclose_degree(fapl, H5F_CLOSE_WEAK), "set the close degree for", "", file);
  if (mode == Mode::create_truncate) {
    // The 1.8 format: checksummed metadata and large (dense) attributes, readable by any
    // HDF5 since 1.8 (h5py, ParaView, VisIt, yt).
    detail::check_status(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18), "set format bounds for", "",
                         file);
  }
  return fapl;
}

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::read: return "reading";
    case Mode::read_write: return "reading and writing";
    case Mode::create_truncate: return "writing";
  }
  return "?";
}

// Splits "a/b/c" into its components (empty ones dropped).
std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= path.size()) {
    const std::size_t next = std::min(path.find('/', pos), path.size());
    if (next > pos) out.emplace_back(path.substr(pos, next - pos));
    pos = next + 1;
  }
  return out;
}

Handle intermediate_group_lcpl(const std::string& file) {
  Handle lcpl(detail::check_id(H5Pcreate(H5P_LINK_CREATE), "create a link list for", "", file));
  detail::check_status(H5Pset_create_intermediate_group(lcpl, 1), "set intermediate groups for", "", file);
  return lcpl;
}

}  // namespace

// ---- Object -------------------------------------------------------------------------------

std::string Object::path_of(std::string_view child) const {
  const bool absolute = !child.empty() && child.front() == '/';
  std::string out = absolute ? std::string(1, '/') : name_;
  for (const std::string& c : components(child)) {
    if (out.back() != '/') out += '/';
    out += c;
  }
  return out;
}

// ---- Group --------------------------------------------------------------------------------

Group Group::create_group(std::string_view path) const {
  const std::string full = path_of(path);
  Handle lcpl = intermediate_group_lcpl(file_name());
  Handle g(detail::check_id(H5Gcreate2(id(), full.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT), "create group", full,
                            file_name()));
  return Group(std::move(g), context(), file_name(), full);
}

Group Group::open_group(std::string_view path) const {
  const std::string full = path_of(path);
  if (!exists(full)) throw InputError(fmt::format("file {} has no group {}", file_name(), full));
  Handle g(detail::check_id(H5Gopen2(id(), full.c_str(), H5P_DEFAULT), "open group", full, file_name()));
  return Group(std::move(g), context(), file_name(), full);
}

Group Group::require_group(std::string_view path) const {
  return exists(path) ? open_group(path) : create_group(path);
}

bool Group::exists(std::string_view path) const {
  const std::string full = path_of(path);
  if (full == "/") return true;
  // H5Lexists fails (rather than answering false) when an intermediate link is missing, so
  // walk the path one component at a time.
  std::string prefix;
  for (const std::string& c : components(full)) {
    prefix += '/';
    prefix += c;
    const htri_t e = H5Lexists(id(), prefix.c_str(), H5P_DEFAULT);
    if (e < 0) detail::throw_h5("look up", prefix, file_name());
    if (e == 0) return false;
  }
  return true;
}

Dataset Group::open_dataset(std::string_view path) const {
  const std::string full = path_of(path);
  if (!exists(full)) throw InputError(fmt::format("file {} has no dataset {}", file_name(), full));
  {
    Handle obj(detail::check_id(H5Oopen(id(), full.c_str(), H5P_DEFAULT), "open", full, file_name()));
    if (H5Iget_type(obj) != H5I_DATASET)
      throw InputError(fmt::format("{} in file {} is a group (or another object), not a dataset", full, file_name()));
  }
  Handle d(detail::check_id(H5Dopen2(id(), full.c_str(), H5P_DEFAULT), "open dataset", full, file_name()));
  return Dataset(std::move(d), context(), file_name(), full);
}

void Group::unlink(std::string_view path) const {
  const std::string full = path_of(path);
  detail::check_status(H5Ldelete(id(), full.c_str(), H5P_DEFAULT), "remove", full, file_name());
}

// ---- Dataset ------------------------------------------------------------------------------

ElementType Dataset::element_type() const {
  Handle type(detail::check_id(H5Dget_type(id()), "read the type of dataset", name(), file_name()));
  return classify_type(type);
}

std::vector<std::int64_t> Dataset::extent() const {
  Handle space(detail::check_id(H5Dget_space(id()), "read the dataspace of dataset", name(), file_name()));
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0) detail::throw_h5("read the rank of dataset", name(), file_name());
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0 && H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0)
    detail::throw_h5("read the extent of dataset", name(), file_name());
  return {dims.begin(), dims.end()};
}

void Dataset::require_type(ElementType want) const {
  const ElementType have = element_type();
  if (have != want)
    throw InputError(fmt::format("dataset {} in {} has type {}, expected {}", name(), file_name(), to_string(have),
                                 to_string(want)));
}

// ---- File ---------------------------------------------------------------------------------

int open_file_count() {
  const ssize_t n = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE);
  return n > 0 ? static_cast<int>(n) : 0;
}

File::File(comm::Context& ctx, const std::filesystem::path& path, Mode mode) : ctx_(&ctx), path_(path), mode_(mode) {
  detail::init_hdf5();
  const std::string file = path.string();

  // Every rank checks (a path may exist on one node and not on another) and all agree.
  if (mode != Mode::create_truncate) {
    agree_input(ctx, [&] {
      std::error_code ec;
      const auto st = std::filesystem::status(path, ec);
      if (!std::filesystem::exists(st))
        throw InputError(fmt::format("cannot open HDF5 file {}: no such file", file));
      if (!std::filesystem::is_regular_file(st))
        throw InputError(fmt::format("cannot open HDF5 file {}: not a regular file", file));
    });
  }

  Handle fapl = make_fapl(ctx, mode, file);
  hid_t id = H5I_INVALID_HID;
  if (mode == Mode::create_truncate)
    id = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  else
    id = H5Fopen(file.c_str(), mode == Mode::read ? H5F_ACC_RDONLY : H5F_ACC_RDWR, fapl);
  Handle handle(id);
  try {
    agree_input(ctx, [&] {
      if (id >= 0) return;
      const std::string stack = detail::take_error_stack();
      if (mode == Mode::create_truncate)
        throw H5Error(fmt::format("HDF5: cannot create file {}: {}", file, stack));
      if (stack.find("signature") != std::string::npos || stack.find("truncated") != std::string::npos)
        throw InputError(fmt::format("{} is truncated or not an HDF5 file (HDF5: {})", file, stack));
      if (stack.find("checksum") != std::string::npos)
        throw InputError(fmt::format("{} is corrupted: its HDF5 metadata fails its checksum (HDF5: {})", file, stack));
      throw InputError(fmt::format("cannot open HDF5 file {} for {}: {}", file, mode_name(mode), stack));
    });
  } catch (...) {
    // Another rank failed to open it. Closing is collective and that rank holds no file, so
    // this rank must not close: HDF5 closes the id when MPI finalises.
    handle.release();
    throw;
  }
  handle_ = std::move(handle);
}

Group File::root() const {
  Handle g(detail::check_id(H5Gopen2(id(), "/", H5P_DEFAULT), "open the root group", "/", path_.string()));
  return Group(std::move(g), *ctx_, path_.string(), "/");
}

void File::flush() const {
  detail::check_status(H5Fflush(id(), H5F_SCOPE_GLOBAL), "flush", "", path_.string());
}

void File::close() {
  if (!handle_.valid()) return;
  const ssize_t others = H5Fget_obj_count(id(), H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR);
  if (others < 0) detail::throw_h5("count the open objects of", "", path_.string());
  if (others > 0) {
    std::vector<hid_t> ids(static_cast<std::size_t>(others));
    const ssize_t n = H5Fget_obj_ids(id(), H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR,
                                     ids.size(), ids.data());
    if (n < 0) detail::throw_h5("list the open objects of", "", path_.string());
    std::string names;
    for (ssize_t i = 0; i < n; ++i) {
      char buf[512] = {};
      if (H5Iget_name(ids[static_cast<std::size_t>(i)], buf, sizeof buf) < 0) H5Eclear2(H5E_DEFAULT);
      names += fmt::format("{}{}", names.empty() ? "" : ", ", buf[0] ? buf : "(unnamed)");
    }
    throw std::logic_error(fmt::format("cannot close {}: {} object(s) of it still open ({}); close them first",
                                       path_.string(), others, names));
  }
  const hid_t id = handle_.release();
  detail::check_status(H5Fclose(id), "close file", "", path_.string());
}

}  // namespace tessera::io
