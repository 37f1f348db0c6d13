#include "io/verify.hpp"

#include <fmt/format.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <string>
#include <vector>

#include "io/agree.hpp"
#include "io/checked_io.hpp"
#include "io/checksum.hpp"
#include "io/h5_attribute.hpp"
#include "io/h5_file.hpp"

namespace tessera::io {
namespace {

// H5Lvisit and H5Oopen keep one signature across HDF5 1.10-1.14 (H5Ovisit does not).
herr_t collect_dataset(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  if (info->type != H5L_TYPE_HARD) return 0;
  const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
  if (obj < 0) return -1;
  const bool dataset = H5Iget_type(obj) == H5I_DATASET;
  H5Oclose(obj);
  if (dataset) static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
  return 0;
}

// Every dataset of the file, in name order (identical on every rank: metadata is read
// collectively).
std::vector<std::string> dataset_names(const Group& root) {
  std::vector<std::string> names;
  if (H5Lvisit(root.id(), H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &names) < 0)
    detail::throw_h5("list the datasets of", "", root.file_name());
  return names;
}

// This rank's part of the checksum of dataset `d`, read in rounds of whole rows (the slowest
// dimension): rows are contiguous in the file's global order, which the checksum numbers.
std::uint64_t local_checksum_part(comm::Context& ctx, const Dataset& d) {
  Handle file_type(detail::check_id(H5Dget_type(d.id()), "read the type of", d.name(), d.file_name()));
  Handle mem_type(detail::check_id(H5Tget_native_type(file_type, H5T_DIR_ASCEND), "find the native type of",
                                   d.name(), d.file_name()));
  const std::size_t element_size = H5Tget_size(mem_type);
  const std::vector<std::int64_t> extent = d.extent();
  const std::int64_t rows = extent.empty() ? 1 : extent[0];
  std::int64_t row_elements = 1;
  for (std::size_t a = 1; a < extent.size(); ++a) row_elements *= extent[a];
  if (rows == 0 || row_elements == 0 || element_size == 0) return 0;

  const std::int64_t budget = std::int64_t{64} << 20;  // bytes per rank per round
  const std::int64_t row_bytes = row_elements * static_cast<std::int64_t>(element_size);
  const std::int64_t rows_per_rank = std::max<std::int64_t>(1, budget / row_bytes);
  const std::int64_t per_round = rows_per_rank * ctx.size();
  const std::int64_t rounds = (rows + per_round - 1) / per_round;

  Handle dxpl(detail::check_id(H5Pcreate(H5P_DATASET_XFER), "create a transfer list for", d.name(), d.file_name()));
  detail::check_status(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "set collective transfer for", d.name(),
                       d.file_name());
  std::vector<unsigned char> buffer;
  std::uint64_t sum = 0;
  for (std::int64_t r = 0; r < rounds; ++r) {
    const std::int64_t first = r * per_round + ctx.rank() * rows_per_rank;
    const std::int64_t count = std::clamp<std::int64_t>(rows - first, 0, rows_per_rank);
    Handle file_space(detail::check_id(H5Dget_space(d.id()), "read the dataspace of", d.name(), d.file_name()));
    Handle mem_space;
    if (extent.empty()) {  // a scalar: rank 0 reads it in round 0
      mem_space = Handle(detail::check_id(H5Screate(H5S_SCALAR), "create a memory space for", d.name(), d.file_name()));
      if (ctx.rank() != 0) {
        H5Sselect_none(file_space);
        H5Sselect_none(mem_space);
      }
    } else {
      std::vector<hsize_t> start(extent.size(), 0), block(extent.begin(), extent.end());
      start[0] = static_cast<hsize_t>(std::min(first, rows));
      block[0] = static_cast<hsize_t>(count);
      const hsize_t n = static_cast<hsize_t>(std::max<std::int64_t>(count * row_elements, 1));
      mem_space = Handle(detail::check_id(H5Screate_simple(1, &n, nullptr), "create a memory space for", d.name(),
                                          d.file_name()));
      if (count > 0) {
        detail::check_status(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, block.data(), nullptr),
                             "select rows of", d.name(), d.file_name());
      } else {
        H5Sselect_none(file_space);
        H5Sselect_none(mem_space);
      }
    }
    const std::int64_t elements = extent.empty() ? (ctx.rank() == 0 ? 1 : 0) : count * row_elements;
    buffer.resize(std::max<std::size_t>(static_cast<std::size_t>(elements) * element_size, 8));
    const herr_t rc = H5Dread(d.id(), mem_type, mem_space, file_space, dxpl, buffer.data());
    agree_input(ctx, [&] {
      if (rc < 0) {
        const std::string stack = detail::take_error_stack();
        throw InputError(fmt::format("dataset {} in {} cannot be read back: {}", d.name(), d.file_name(), stack));
      }
    });
    if (elements > 0)
      sum += checksum_bytes(buffer.data(), elements, element_size, extent.empty() ? 0 : first * row_elements);
  }
  return sum;
}

}  // namespace

std::int64_t verify_checksums(comm::Context& ctx, const std::filesystem::path& file,
                              const std::function<void(const Group&)>& check) {
  const File f = File::open(ctx, file, Mode::read);
  const Group root = f.root();
  std::int64_t verified = 0;
  for (const std::string& name : dataset_names(root)) {
    const Dataset d = root.open_dataset(name);
    if (!has_attribute(d, kChecksumAttribute)) continue;
    const std::uint64_t part = local_checksum_part(ctx, d);
    detail::verify_checksum(root, name, part);  // InputError "... is corrupted" on every rank
    ++verified;
  }
  if (check) check(root);
  return verified;
}

std::string free_space_note(const std::filesystem::path& path) {
  std::filesystem::path dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  struct statvfs s {};
  if (::statvfs(dir.c_str(), &s) != 0) return {};
  const double free_bytes = static_cast<double>(s.f_bavail) * static_cast<double>(s.f_frsize);
  const double total = static_cast<double>(s.f_blocks) * static_cast<double>(s.f_frsize);
  auto human = [](double b) {
    const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (b >= 1000.0 && u < 5) b /= 1000.0, ++u;
    return fmt::format("{:.3g} {}", b, units[u]);
  };
  return fmt::format("{} free of {} on the file system holding {}", human(free_bytes), human(total), dir.string());
}

}  // namespace tessera::io
