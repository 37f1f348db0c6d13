#pragma once
// The [spmv], [spmv.matrix], [spmv.x] and [spmv.cg] deck tables.
#include "core/deck/schema.hpp"

namespace tessera::spmv {
deck::Schema spmv_schema();
}  // namespace tessera::spmv
