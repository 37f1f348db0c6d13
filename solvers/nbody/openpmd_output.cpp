#include "solvers/nbody/openpmd_output.hpp"

#include <string>
#include <vector>

#include "io/checked_io.hpp"
#include "io/openpmd.hpp"

namespace tessera::nbody {

template <class T>
void write_openpmd_bodies(comm::Context& ctx, const std::filesystem::path& dir, const OpenPmdStep& at,
                          const HostBodies<T>& bodies, Range range, std::int64_t n_total) {
  namespace opmd = io::openpmd;
  const double length_si = at.units.length_in_cm * 1e-2;
  const double velocity_si = at.units.velocity_in_cm_per_s * 1e-2;
  const double mass_si = at.units.mass_in_g * 1e-3;
  const std::size_t n = bodies.size();
  std::vector<double> x[3];
  std::vector<T> v[3], m(n);
  for (int a = 0; a < 3; ++a) x[a].resize(n), v[a].resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& p = bodies.pos_mass[i];
    const auto& q = bodies.vel[i];
    x[0][i] = p.x, x[1][i] = p.y, x[2][i] = p.z;
    v[0][i] = q.x, v[1][i] = q.y, v[2][i] = q.z;
    m[i] = p.w;
  }

  opmd::SeriesFile file(ctx, dir, "nbody", static_cast<std::uint64_t>(at.step), {.particles = true});
  {
    const io::Group it = file.iteration(at.time, at.dt, at.units.time_in_s);
    const io::Group species = it.create_group("particles/bodies");
    const std::vector<std::uint64_t> shape{static_cast<std::uint64_t>(n_total)};
    const io::Group position = species.create_group("position");
    const io::Group offset = species.create_group("positionOffset");
    const io::Group velocity = species.create_group("velocity");
    opmd::write_record(position, opmd::kLength, 0.0);
    opmd::write_record(offset, opmd::kLength, 0.0);
    opmd::write_record(velocity, opmd::kVelocity, 0.0);
    for (int a = 0; a < 3; ++a) {
      const std::string axis(1, char('x' + a));
      opmd::write_component(io::write_1d_checked<double>(position, axis, x[a], range.begin, n_total), length_si);
      opmd::write_constant_component(offset, axis, 0.0, shape, length_si);
      opmd::write_component(io::write_1d_checked<T>(velocity, axis, v[a], range.begin, n_total), velocity_si);
    }
    const io::Dataset mass = io::write_1d_checked<T>(species, "mass", m, range.begin, n_total);
    opmd::write_record(mass, opmd::kMass, 0.0);
    opmd::write_component(mass, mass_si);
    const io::Dataset id = io::write_1d_checked<std::uint64_t>(species, "id", bodies.ids, range.begin, n_total);
    opmd::write_record(id, opmd::kDimensionless, 0.0);
    opmd::write_component(id, 1.0);
  }
  file.commit();
}

template void write_openpmd_bodies<float>(comm::Context&, const std::filesystem::path&, const OpenPmdStep&,
                                          const HostBodies<float>&, Range, std::int64_t);
template void write_openpmd_bodies<double>(comm::Context&, const std::filesystem::path&, const OpenPmdStep&,
                                           const HostBodies<double>&, Range, std::int64_t);

}  // namespace tessera::nbody
