#pragma once
// Helpers of the fdtd GPU tests: a device transport where this machine has one, and a
// stepper's owned cells (the ghost layers hold whatever each sweep left there).
#include <memory>
#include <string>
#include <vector>

#include "comm/transport.hpp"
#include "core/error.hpp"
#include "solvers/fdtd/stepper.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::fdtd::test {

// The device transport `kind`, or null with the reason where this machine has none.
inline std::unique_ptr<comm::Transport> device_transport(const std::string& kind, std::string& why) {
  try {
    return comm::make_transport(tessera::test::context(), Backend::cuda, kind).transport;
  } catch (const InputError& e) {
    why = e.what();
    return nullptr;
  }
}

// Every component's values on the rank's own cells, x fastest: what two sweeps must agree on
// (no step reads a ghost layer before an exchange or a pass refills it).
inline std::vector<std::vector<float>> owned_fields(Stepper& s) {
  Engine& e = s.engine();
  const Layout& l = e.layout();
  const Index3& n = e.domain().n;
  std::vector<float> all(static_cast<std::size_t>(l.elements()));
  std::vector<std::vector<float>> out;
  for (int c = 0; c < kComponents; ++c) {
    e.download(c, all);
    out.emplace_back();
    for (std::int64_t z = 0; z < n[2]; ++z)
      for (std::int64_t y = 0; y < n[1]; ++y)
        for (std::int64_t x = 0; x < n[0]; ++x) out.back().push_back(all[static_cast<std::size_t>(l.at(x, y, z))]);
  }
  return out;
}

}  // namespace tessera::fdtd::test
