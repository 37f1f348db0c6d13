#pragma once
// The deck tables of the fdtd solver: [fdtd], [fdtd.boundary], [fdtd.cpml], [fdtd.probes] and
// the arrays [[fdtd.material]], [[fdtd.geometry]], [[fdtd.source]], [[fdtd.probe]],
// [[fdtd.volume]]. docs/fdtd.md explains each key; `tessera keys` prints them.
#include "core/deck/schema.hpp"

namespace tessera::fdtd {
deck::Schema schema();
}  // namespace tessera::fdtd
