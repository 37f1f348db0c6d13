#include "io/h5_error.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <mutex>

#include "io/output_file.hpp"

namespace tessera::io::detail {

void init_hdf5() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (H5open() < 0) throw H5Error("HDF5: H5open failed (the HDF5 library could not be initialised)");
    // Errors become exceptions with the stack in their message; no per-rank printing.
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  });
}

namespace {
struct Walk {
  std::string out;
  std::string last;
};

herr_t collect_entry(unsigned /*n*/, const H5E_error2_t* e, void* data) {
  auto& w = *static_cast<Walk*>(data);
  std::string desc = e->desc ? e->desc : "";
  // Some descriptions span lines (H5F_open adds a time stamp); keep messages on one line.
  for (char& c : desc)
    if (c == '\n') c = ' ';
  if (desc.empty() || desc == w.last) return 0;  // layers often repeat "can't write data"
  if (!w.out.empty()) w.out += "; ";
  w.out += desc;
  w.last = std::move(desc);
  return 0;
}
}  // namespace

std::string take_error_stack() {
  Walk w;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_entry, &w);
  H5Eclear2(H5E_DEFAULT);
  return w.out.empty() ? std::string("no HDF5 error description") : w.out;
}

namespace {
// An action that puts bytes into a file (the ones a full disk or a quota makes fail).
bool writes(std::string_view action) {
  for (std::string_view w : {"write", "create", "flush", "close", "resize", "extend", "replace"})
    if (action.starts_with(w)) return true;
  return false;
}
}  // namespace

void throw_h5(std::string_view action, std::string_view object, std::string_view file) {
  const std::string stack = take_error_stack();
  std::string where;
  if (!object.empty()) where += fmt::format(" {}", object);
  if (!file.empty()) where += fmt::format(" in {}", file);
  std::string message = fmt::format("HDF5: cannot {}{}: {}", action, where, stack);
  // A failed write into a file being published (io::OutputFile writes NAME.tmp): say so as
  // every publication failure does (the final name, the cause, the free space), whether HDF5
  // reported it at once (one rank) or only the read-back found it (Open MPI's aggregators).
  constexpr std::string_view tmp = ".tmp";
  if (writes(action) && file.size() > tmp.size() && file.ends_with(tmp))
    message = publication_failure(std::filesystem::path(file.substr(0, file.size() - tmp.size())), message);
  throw H5Error(message);
}

}  // namespace tessera::io::detail
