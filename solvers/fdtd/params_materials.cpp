// [[fdtd.material]], fdtd.background and [[fdtd.geometry]] of params_from_deck (params.hpp),
// and the shapes' point test.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/deck/suggest.hpp"
#include "core/error.hpp"
#include "solvers/fdtd/constants.hpp"
#include "solvers/fdtd/dispersion.hpp"
#include "solvers/fdtd/geometry/shape_data.hpp"
#include "solvers/fdtd/params_read.hpp"

namespace tessera::fdtd {
namespace {

using params_detail::kAxis;
using params_detail::vec3;

int material_index(const Model& m, const std::string& name, const std::string& where, const std::string& key) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < m.materials.size(); ++i) {
    if (m.materials[i].name == name) return static_cast<int>(i);
    names.push_back(m.materials[i].name);
  }
  throw InputError(fmt::format("{}: {} = \"{}\" is not a material (known: {}){}", where, key, name,
                               fmt::join(names, ", "), deck::did_you_mean(name, names)));
}

// The pole arrays of one [[fdtd.material]] (Hz in the deck, rad/s in the model), and the
// stability of its update (dispersion.hpp). With J at half steps driven by E(n), a lossless
// material's modes satisfy W^2 eps(W) = c0^2 K^2 with W = (2/dt) sin(w dt/2) and
// eps(W) = eps_inf + sum w_p^2 / (w_0^2 - W^2); the largest K^2 of the grid is 4 S^2 / (c0 dt)^2
// (S = courant). All modes are stable (W^2 real and <= 4/dt^2) iff every w_0 dt < 2 and at
// W^2 = 4/dt^2 the left side still exceeds that largest K^2 (it rises with W^2 above the
// poles):
//     eps_inf - sum_p (w_p dt)^2 / (4 - (w_0 dt)^2) > S^2.
// Damping and conductivity only take energy out, so the lossless bound is the one checked.
void read_poles(const deck::Config& e, const Model& m, MaterialSpec& spec) {
  const auto array = [&](const char* key) -> std::vector<double> {
    if (!e.has(key)) return {};
    const auto& a = e.get_double_array(key);
    return {a.begin(), a.end()};
  };
  const auto drude_f = array("drude_frequency"), drude_g = array("drude_damping");
  const auto lor_de = array("lorentz_delta_eps"), lor_f = array("lorentz_frequency"), lor_g = array("lorentz_damping");
  if (drude_g.size() != drude_f.size() && !drude_g.empty())
    throw InputError(fmt::format("{}: {}.drude_damping has {} values, drude_frequency {}: one per pole (or leave "
                                 "drude_damping out for lossless poles)",
                                 e.where("drude_damping"), e.name(), drude_g.size(), drude_f.size()));
  if (lor_f.size() != lor_de.size() || (!lor_g.empty() && lor_g.size() != lor_de.size()))
    throw InputError(fmt::format("{}: {}.lorentz_delta_eps, lorentz_frequency and lorentz_damping have {}, {} and {} "
                                 "values: one per pole (lorentz_damping may be left out)",
                                 e.where(e.has("lorentz_frequency") ? "lorentz_frequency" : "lorentz_delta_eps"),
                                 e.name(), lor_de.size(), lor_f.size(), lor_g.size()));
  const double two_pi = 2 * 3.14159265358979323846;
  for (std::size_t p = 0; p < drude_f.size(); ++p)
    spec.poles.push_back({std::pow(two_pi * drude_f[p], 2), 0.0, drude_g.empty() ? 0.0 : two_pi * drude_g[p]});
  for (std::size_t p = 0; p < lor_f.size(); ++p) {
    const double w0 = two_pi * lor_f[p];
    spec.poles.push_back({lor_de[p] * w0 * w0, w0, lor_g.empty() ? 0.0 : two_pi * lor_g[p]});
  }
  if (spec.poles.empty()) return;
  const std::string key = !drude_f.empty() ? "drude_frequency" : "lorentz_frequency";
  if (spec.poles.size() > static_cast<std::size_t>(kMaxPoles))
    throw InputError(fmt::format("{}: {} has {} poles; at most {} per material", e.where(key), e.name(),
                                 spec.poles.size(), kMaxPoles));
  const double dt = m.dt, s = m.dt / courant_limit(m.cell_size);
  double margin = spec.eps_r;
  for (std::size_t p = 0; p < spec.poles.size(); ++p) {
    const PoleSpec& pole = spec.poles[p];
    const bool lorentz = p >= drude_f.size();
    if (lorentz && pole.omega0 * dt >= 2)
      throw InputError(fmt::format("{}: {}.lorentz_frequency = {:g} Hz is unstable with dt = {:.6g} s: the pole needs "
                                   "2 pi f dt < 2, i.e. f < {:.6g} Hz (use a smaller dt or cells)",
                                   e.where("lorentz_frequency"), e.name(), pole.omega0 / two_pi, dt,
                                   1 / (3.14159265358979323846 * dt)));
    margin -= pole.omega_p2 * dt * dt / (4 - pole.omega0 * pole.omega0 * dt * dt);
  }
  if (margin <= s * s)
    throw InputError(fmt::format(
        "{}: the poles of {} are unstable with dt = {:.6g} s (courant {:.4g}): the update needs eps_r - sum (w_p "
        "dt)^2 / (4 - (w_0 dt)^2) > courant^2, here {:.6g} <= {:.6g} (w_p: 2 pi drude_frequency, or w_0 sqrt(delta_eps) "
        "for a Lorentz pole); lower fdtd.courant or the cell size, or raise eps_r",
        e.where(key), e.name(), dt, s, margin, s * s));
}

}  // namespace

void params_detail::read_materials(const deck::Config& d, Model& m) {
  m.materials = {{"vacuum", 1.0, 0.0, false, {}}, {"pec", 1.0, 0.0, true, {}}};
  for (const deck::Config& e : d.get_table_array("fdtd.material")) {
    MaterialSpec spec{e.get_string("name"), e.get_double("eps_r"), e.get_double("sigma"), false, {}};
    read_poles(e, m, spec);
    for (const auto& known : m.materials)
      if (known.name == spec.name)
        throw InputError(fmt::format("{}: {}.name = \"{}\" is {}", e.where("name"), e.name(), spec.name,
                                     known.name == "vacuum" || known.name == "pec" ? "built in; choose another name"
                                                                                   : "defined twice"));
    m.materials.push_back(spec);
  }
  if (m.materials.size() > kMaxMaterials)
    throw InputError(fmt::format("{} materials are defined; at most {} (with vacuum and pec) fit the per-cell index",
                                 m.materials.size(), kMaxMaterials));
  m.background = material_index(m, d.get_string("fdtd.background"), d.where("fdtd.background"), "fdtd.background");
}

namespace {

// Shapes must lie inside the domain (touching its faces is fine).
void check_inside(const deck::Config& e, const Shape& s, const Model& m, const char* key) {
  const auto lo = s.lower(), hi = s.upper();
  for (int a = 0; a < 3; ++a) {
    const double extent = m.cells[a] * m.cell_size[a], tol = 1e-9 * extent;
    if (lo[a] < -tol || hi[a] > extent + tol || hi[a] < lo[a])
      throw InputError(fmt::format("{}: {} lies outside the domain: it spans {:g} .. {:g} m along {}, the domain "
                                   "0 .. {:g} m",
                                   e.where(key), e.name(), lo[a], hi[a], kAxis[a], extent));
  }
}

const deck::FloatArray& required_array(const deck::Config& e, const char* key, const char* shape) {
  if (!e.has(key))
    throw InputError(fmt::format("{}: {} is a {} and needs '{}'", e.location(), e.name(), shape, key));
  return e.get_double_array(key);
}

double required_float(const deck::Config& e, const char* key, const char* shape) {
  if (!e.has(key)) throw InputError(fmt::format("{}: {} is a {} and needs '{}'", e.location(), e.name(), shape, key));
  return e.get_double(key);
}

// The keys of a file-backed shape; its bounds and the inside-the-domain check come when
// load_geometry reads the file.
void read_shape_file(const deck::Config& e, const Model& m, Shape& s) {
  const char* kind = s.kind == ShapeKind::mesh ? "mesh" : "voxels";
  if (!e.has("file")) throw InputError(fmt::format("{}: {} is a {} and needs 'file'", e.location(), e.name(), kind));
  s.file.name = e.name();
  s.file.path = e.get_string("file");
  s.file.where = e.where("file");
  if (s.kind == ShapeKind::mesh) {
    s.file.scale = e.get_double("scale");
    s.file.rotate = vec3(e.get_double_array("rotate"));
    s.file.translate = vec3(e.get_double_array("translate"));
    return;
  }
  s.file.dataset = e.get_string("dataset");
  s.file.origin = vec3(e.get_double_array("origin"));
  s.file.voxel_size = e.has("voxel_size") ? vec3(e.get_double_array("voxel_size")) : m.cell_size;
  if (e.has("materials")) {
    std::istringstream names(e.get_string("materials"));
    for (std::string name; names >> name;)
      s.file.materials.push_back(material_index(m, name, e.where("materials"), e.name() + ".materials"));
    if (s.file.materials.empty())
      throw InputError(fmt::format("{}: {}.materials names no material", e.where("materials"), e.name()));
  }
}

}  // namespace

void params_detail::read_geometry(const deck::Config& d, Model& m) {
  for (const deck::Config& e : d.get_table_array("fdtd.geometry")) {
    Shape s;
    const std::string& kind = e.get_string("shape");
    // Every shape names its material but a voxel map of material numbers, which names them all.
    const bool numbered_voxels = kind == "voxels" && e.has("materials");
    if (numbered_voxels && e.has("material"))
      throw InputError(fmt::format("{}: {} has both 'material' and 'materials': 'materials' is for a dataset of "
                                   "material numbers, 'material' for one of eps_r",
                                   e.where("material"), e.name()));
    if (!numbered_voxels) {
      if (!e.has("material"))
        throw InputError(fmt::format("{}: {} needs 'material'{}", e.location(), e.name(),
                                     kind == "voxels" ? " (an eps_r dataset) or 'materials' (material numbers)" : ""));
      s.material = material_index(m, e.get_string("material"), e.where("material"), e.name() + ".material");
    }
    const char* key = "shape";
    if (kind == "box") {
      s.kind = ShapeKind::box;
      s.min = vec3(required_array(e, "min", "box"));
      s.max = vec3(required_array(e, "max", "box"));
      key = "max";
    } else if (kind == "sphere") {
      s.kind = ShapeKind::sphere;
      s.center = vec3(required_array(e, "center", "sphere"));
      s.radius = required_float(e, "radius", "sphere");
      key = "center";
    } else if (kind == "cylinder") {
      s.kind = ShapeKind::cylinder;
      s.center = vec3(required_array(e, "center", "cylinder"));
      s.radius = required_float(e, "radius", "cylinder");
      s.length = required_float(e, "length", "cylinder");
      s.axis = e.get_string("axis")[0] - 'x';
      key = "center";
    } else {
      s.kind = kind == "mesh" ? ShapeKind::mesh : ShapeKind::voxels;
      read_shape_file(e, m, s);
      m.shapes.push_back(s);
      continue;
    }
    check_inside(e, s, m, key);
    m.shapes.push_back(s);
  }
}


int Shape::material_at(const std::array<double, 3>& p) const {
  switch (kind) {
    case ShapeKind::box:
      for (int a = 0; a < 3; ++a)
        if (p[a] < min[a] || p[a] > max[a]) return -1;
      return material;
    case ShapeKind::sphere: {
      double r2 = 0;
      for (int a = 0; a < 3; ++a) r2 += (p[a] - center[a]) * (p[a] - center[a]);
      return r2 <= radius * radius ? material : -1;
    }
    case ShapeKind::cylinder: {
      double r2 = 0;
      for (int a = 0; a < 3; ++a)
        if (a != axis) r2 += (p[a] - center[a]) * (p[a] - center[a]);
      return r2 <= radius * radius && std::abs(p[axis] - center[axis]) <= 0.5 * length ? material : -1;
    }
    case ShapeKind::mesh:
    case ShapeKind::voxels:
      if (!data) throw std::logic_error("a file-backed shape was queried before load_geometry");
      return data->material_at(p);
  }
  return -1;
}

std::array<double, 3> Shape::lower() const {
  if (kind == ShapeKind::box || kind == ShapeKind::mesh || kind == ShapeKind::voxels) return min;
  std::array<double, 3> r;
  for (int a = 0; a < 3; ++a)
    r[a] = center[a] - (kind == ShapeKind::cylinder && a == axis ? 0.5 * length : radius);
  return r;
}

std::array<double, 3> Shape::upper() const {
  if (kind == ShapeKind::box || kind == ShapeKind::mesh || kind == ShapeKind::voxels) return max;
  std::array<double, 3> r;
  for (int a = 0; a < 3; ++a)
    r[a] = center[a] + (kind == ShapeKind::cylinder && a == axis ? 0.5 * length : radius);
  return r;
}

}  // namespace tessera::fdtd
