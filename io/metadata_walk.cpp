#include "io/metadata_walk.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <string>
#include <string_view>

#include "io/h5_error.hpp"

namespace tessera::io {
namespace {

struct Walk {
  std::string failed;  // the object (and what of it) that could not be read
};

// Opens each attribute of `obj` (its message in the header, or the dense storage it points to).
bool touch_attributes(hid_t obj, hsize_t count, const std::string& name, Walk& w) {
  for (hsize_t i = 0; i < count; ++i) {
    const hid_t a = H5Aopen_by_idx(obj, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) {
      w.failed = fmt::format("attribute {} of {}", i, name);
      return false;
    }
    const hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    const bool ok = t >= 0 && s >= 0;
    if (t >= 0) H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    H5Aclose(a);
    if (!ok) {
      w.failed = fmt::format("attribute {} of {}", i, name);
      return false;
    }
  }
  return true;
}

// A dataset's type, space and layout; a chunked one's chunk index.
bool touch_dataset(hid_t d, const std::string& name, Walk& w) {
  const hid_t t = H5Dget_type(d), s = H5Dget_space(d), p = H5Dget_create_plist(d);
  bool ok = t >= 0 && s >= 0 && p >= 0;
  if (ok && H5Pget_layout(p) == H5D_CHUNKED) {
    hsize_t chunks = 0;
    ok = H5Dget_num_chunks(d, s, &chunks) >= 0;
  }
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  if (p >= 0) H5Pclose(p);
  if (!ok) w.failed = fmt::format("the layout of dataset {}", name);
  return ok;
}

herr_t visit(hid_t group, const char* name, const H5O_info_t* info, void* data) {
  auto& w = *static_cast<Walk*>(data);
  std::string path = "/";
  if (std::string_view(name) != ".") path += name;
  const hid_t o = H5Oopen(group, name, H5P_DEFAULT);
  if (o < 0) {
    w.failed = path;
    return -1;
  }
  bool ok = touch_attributes(o, info->num_attrs, path, w);
  if (ok && info->type == H5O_TYPE_DATASET) ok = touch_dataset(o, path, w);
  H5Oclose(o);
  return ok ? 0 : -1;
}

}  // namespace

void walk_metadata(const Group& root) {
  Walk w;
  const herr_t rc = H5Ovisit2(root.id(), H5_INDEX_NAME, H5_ITER_INC, visit, &w, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS);
  if (rc < 0) detail::throw_h5("read the metadata of", w.failed.empty() ? std::string("the file") : w.failed,
                               root.file_name());
}

}  // namespace tessera::io
