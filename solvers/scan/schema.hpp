#pragma once
// The [scan] and [scan.input] deck tables (the run loop adds [run], [output], ...).
#include "core/deck/schema.hpp"

namespace tessera::scan {
deck::Schema scan_schema();
}  // namespace tessera::scan
