#include "io/h5_handle.hpp"

namespace tessera::io {

bool Handle::close() noexcept {
  if (id_ < 0) return true;
  const hid_t id = std::exchange(id_, H5I_INVALID_HID);
  herr_t rc = 0;
  switch (H5Iget_type(id)) {
    case H5I_FILE: rc = H5Fclose(id); break;
    case H5I_GROUP: rc = H5Gclose(id); break;
    case H5I_DATASET: rc = H5Dclose(id); break;
    case H5I_DATASPACE: rc = H5Sclose(id); break;
    case H5I_DATATYPE: rc = H5Tclose(id); break;
    case H5I_ATTR: rc = H5Aclose(id); break;
    case H5I_GENPROP_LST: rc = H5Pclose(id); break;
    default: rc = H5Idec_ref(id) < 0 ? -1 : 0; break;  // anything else: drop our reference
  }
  if (rc < 0) H5Eclear2(H5E_DEFAULT);  // a destructor cannot throw; leave a clean stack
  return rc >= 0;
}

}  // namespace tessera::io
