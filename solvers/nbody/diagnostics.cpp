#include "solvers/nbody/diagnostics.hpp"

#include <cmath>
#include <span>

#include "comm/collectives.hpp"

namespace tessera::nbody {

template <class T>
Measurement measure(comm::Context& ctx, const std::vector<Vec4<T>>& pos_mass, const std::vector<Vec4<T>>& vel,
                    const std::vector<Vec4<T>>& phi) {
  // mass, kinetic, potential, momentum (3), angular momentum (3), mass-weighted position (3)
  std::array<double, 12> s{};
  for (std::size_t i = 0; i < pos_mass.size(); ++i) {
    const double m = pos_mass[i].w;
    const double x[3] = {pos_mass[i].x, pos_mass[i].y, pos_mass[i].z};
    const double v[3] = {vel[i].x, vel[i].y, vel[i].z};
    s[0] += m;
    s[1] += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    s[2] += 0.5 * m * double(phi[i].w);
    for (int k = 0; k < 3; ++k) s[3 + k] += m * v[k];
    s[6] += m * (x[1] * v[2] - x[2] * v[1]);
    s[7] += m * (x[2] * v[0] - x[0] * v[2]);
    s[8] += m * (x[0] * v[1] - x[1] * v[0]);
    for (int k = 0; k < 3; ++k) s[9 + k] += m * x[k];
  }
  comm::allreduce_inplace(ctx, std::span<double>(s), comm::Op::sum);
  Measurement out;
  out.mass = s[0];
  out.kinetic = s[1];
  out.potential = s[2];
  for (int k = 0; k < 3; ++k) {
    out.momentum[k] = s[3 + k];
    out.angular_momentum[k] = s[6 + k];
    out.centre_of_mass[k] = s[0] > 0 ? s[9 + k] / s[0] : 0.0;
  }
  return out;
}

std::vector<io::Column> diagnostics_columns(const CodeUnits& u) {
  return {{"step", "1"},          {"time", u.time},           {"kinetic", u.energy},
          {"potential", u.energy}, {"total", u.energy},        {"energy_error", "1"},
          {"px", u.momentum},      {"py", u.momentum},         {"pz", u.momentum},
          {"Lx", u.angular_momentum}, {"Ly", u.angular_momentum}, {"Lz", u.angular_momentum},
          {"com_x", u.length},     {"com_y", u.length},        {"com_z", u.length}};
}

double relative_energy_error(double energy, double initial_energy) {
  return initial_energy != 0 ? (energy - initial_energy) / std::abs(initial_energy) : 0.0;
}

std::vector<double> diagnostics_row(std::int64_t step, double time, const Measurement& m, double initial_energy) {
  return {static_cast<double>(step),
          time,
          m.kinetic,
          m.potential,
          m.total(),
          relative_energy_error(m.total(), initial_energy),
          m.momentum[0],
          m.momentum[1],
          m.momentum[2],
          m.angular_momentum[0],
          m.angular_momentum[1],
          m.angular_momentum[2],
          m.centre_of_mass[0],
          m.centre_of_mass[1],
          m.centre_of_mass[2]};
}

template Measurement measure<float>(comm::Context&, const std::vector<Vec4<float>>&, const std::vector<Vec4<float>>&,
                                    const std::vector<Vec4<float>>&);
template Measurement measure<double>(comm::Context&, const std::vector<Vec4<double>>&,
                                     const std::vector<Vec4<double>>&, const std::vector<Vec4<double>>&);

}  // namespace tessera::nbody
