#pragma once
// Conserved quantities of the whole system: energies (kinetic, potential from the force loop,
// total and its drift relative to the first measurement), momentum, angular momentum about
// the origin and the centre of mass. Sums run in double over this rank's bodies, then one
// allreduce (so they agree across rank counts to about 1e-16 relative, not bitwise).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "io/time_series.hpp"
#include "solvers/nbody/code_units.hpp"
#include "solvers/nbody/vec.hpp"

namespace tessera::nbody {

struct Measurement {
  double mass = 0;
  double kinetic = 0;
  double potential = 0;  // 1/2 sum_i m_i phi_i
  std::array<double, 3> momentum{}, angular_momentum{}, centre_of_mass{};
  double total() const { return kinetic + potential; }
};

// Collective. `phi[i].w` holds body i's potential (the acc array after a potential pass, or
// a scratch pass's output).
template <class T>
Measurement measure(comm::Context& ctx, const std::vector<Vec4<T>>& pos_mass, const std::vector<Vec4<T>>& vel,
                    const std::vector<Vec4<T>>& phi);

// The columns of diagnostics.h5's time series (with their units), and one row.
std::vector<io::Column> diagnostics_columns(const CodeUnits& u);
std::vector<double> diagnostics_row(std::int64_t step, double time, const Measurement& m, double initial_energy);
// |E - E0| / |E0| (signed), 0 when E0 = 0.
double relative_energy_error(double energy, double initial_energy);

}  // namespace tessera::nbody
