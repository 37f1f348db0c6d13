#include "solvers/fdtd/params.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/deck/suggest.hpp"
#include "core/error.hpp"
#include "solvers/fdtd/constants.hpp"
#include "solvers/fdtd/dispersion.hpp"
#include "solvers/fdtd/geometry/shape_data.hpp"
#include "solvers/fdtd/material_quantity.hpp"

namespace tessera::fdtd {
namespace {

constexpr const char* kAxis[3] = {"x", "y", "z"};
constexpr const char* kFaceKey[3][2] = {{"x_low", "x_high"}, {"y_low", "y_high"}, {"z_low", "z_high"}};

std::array<double, 3> vec3(const deck::FloatArray& v) { return {v[0], v[1], v[2]}; }

FaceKind parse_face(const std::string& s) {
  if (s == "periodic") return FaceKind::periodic;
  if (s == "cpml") return FaceKind::cpml;
  return FaceKind::pec;
}

void read_grid(const deck::Config& d, Model& m) {
  const auto& cells = d.get_int_array("fdtd.cells");
  const auto& size = d.get_double_array("fdtd.cell_size");
  for (int a = 0; a < 3; ++a) {
    m.cells[a] = cells[a];
    m.cell_size[a] = size[a];
  }
  const double limit = courant_limit(m.cell_size);
  if (d.has("fdtd.dt")) {
    m.dt = d.get_double("fdtd.dt");
    if (m.dt > limit)
      throw InputError(fmt::format(
          "{}: fdtd.dt = {:.6g} s is unstable: the Courant limit of the 3D Yee scheme for cells {:g} x {:g} x {:g} m "
          "is dt <= {:.6g} s (courant = {:.4f}); use a smaller dt or set fdtd.courant <= 1 instead",
          d.where("fdtd.dt"), m.dt, m.cell_size[0], m.cell_size[1], m.cell_size[2], limit, m.dt / limit));
  } else {
    const double s = d.get_double("fdtd.courant");
    if (s > 1)
      throw InputError(fmt::format(
          "{}: fdtd.courant = {:g} is unstable: the 3D Yee scheme needs courant <= 1, i.e. dt <= {:.6g} s for cells "
          "{:g} x {:g} x {:g} m",
          d.where("fdtd.courant"), s, limit, m.cell_size[0], m.cell_size[1], m.cell_size[2]));
    m.dt = s * limit;
  }
  const auto& ranks = d.get_int_array("fdtd.ranks");
  for (int a = 0; a < 3; ++a) m.ranks[a] = static_cast<int>(ranks[a]);
  const std::string sweep = d.get_string("fdtd.sweep");
  m.sweep = sweep == "fused"     ? Sweep::fused
            : sweep == "split"   ? Sweep::split
            : sweep == "blocked" ? Sweep::blocked
                                 : Sweep::automatic;
  m.block_steps = static_cast<int>(d.get_int("fdtd.block_steps"));
  m.smoothing = d.get_bool("fdtd.smoothing");
}

void read_boundaries(const deck::Config& d, Model& m) {
  for (int a = 0; a < 3; ++a) {
    for (int s = 0; s < 2; ++s) m.faces[a][s] = parse_face(d.get_string(fmt::format("fdtd.boundary.{}", kFaceKey[a][s])));
    const bool lo = m.faces[a][0] == FaceKind::periodic, hi = m.faces[a][1] == FaceKind::periodic;
    if (lo != hi)
      throw InputError(fmt::format("{}: fdtd.boundary.{} is periodic but fdtd.boundary.{} is not; a periodic axis "
                                   "needs both faces periodic",
                                   d.where(fmt::format("fdtd.boundary.{}", kFaceKey[a][lo ? 0 : 1])), kFaceKey[a][lo ? 0 : 1],
                                   kFaceKey[a][lo ? 1 : 0]));
  }
  m.cpml.thickness = static_cast<int>(d.get_int("fdtd.cpml.thickness"));
  m.cpml.order = d.get_double("fdtd.cpml.order");
  m.cpml.r0 = d.get_double("fdtd.cpml.R0");
  m.cpml.kappa_max = d.get_double("fdtd.cpml.kappa_max");
  m.cpml.alpha_max = d.get_double("fdtd.cpml.alpha_max");
  for (int a = 0; a < 3; ++a) {
    const int pml = m.cpml_cells(a, 0) + m.cpml_cells(a, 1);
    if (pml > 0 && pml >= m.cells[a])
      throw InputError(fmt::format(
          "{}: fdtd.cpml.thickness = {} is too thick for the grid: the cpml faces along {} take {} of its {} cells; "
          "leave at least one cell between the PML slabs (more cells or a thinner PML)",
          d.where("fdtd.cpml.thickness"), m.cpml.thickness, kAxis[a], pml, m.cells[a]));
  }
}

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

void read_materials(const deck::Config& d, Model& m) {
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

void read_geometry(const deck::Config& d, Model& m) {
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

// `key` names the deck key that holds `p` ("position", or a region's "min" / "max"): the
// message points at that key's line.
void check_position(const deck::Config& e, const std::array<double, 3>& p, const Model& m,
                    const char* key = "position") {
  for (int a = 0; a < 3; ++a) {
    const double extent = m.cells[a] * m.cell_size[a];
    if (p[a] < 0 || p[a] > extent)
      throw InputError(fmt::format("{}: {}.{} {:g} m along {} lies outside the domain 0 .. {:g} m", e.where(key),
                                   e.name(), key, p[a], kAxis[a], extent));
  }
}

int component_index(const std::string& name) {
  for (int c = 0; c < kComponents; ++c)
    if (name == kComponentName[c]) return c;
  return -1;
}

Waveform read_waveform(const deck::Config& e) {
  Waveform w;
  w.kind = parse_waveform(e.get_string("waveform"));
  const bool has_f = e.has("frequency");
  const double f = has_f ? e.get_double("frequency") : 0.0;
  w.frequency = f;
  const auto need_frequency = [&] {
    if (!has_f)
      throw InputError(fmt::format("{}: {} has waveform \"{}\", which needs 'frequency'", e.location(), e.name(),
                                   e.get_string("waveform")));
  };
  switch (w.kind) {
    case WaveformKind::gaussian:
      if (!e.has("width") && !has_f)
        throw InputError(fmt::format("{}: {} has a gaussian waveform: give 'width' (s) or 'frequency' (Hz, width = "
                                     "1 / (pi frequency))",
                                     e.location(), e.name()));
      w.width = e.has("width") ? e.get_double("width") : 1.0 / (kPi * f);
      w.delay = e.has("delay") ? e.get_double("delay") : 4 * w.width;
      break;
    case WaveformKind::modulated_gaussian:
      need_frequency();
      w.width = e.has("width") ? e.get_double("width") : 1.0 / f;
      w.delay = e.has("delay") ? e.get_double("delay") : 4 * w.width;
      break;
    case WaveformKind::ricker:
      need_frequency();
      w.delay = e.has("delay") ? e.get_double("delay") : 1.5 / f;
      break;
    case WaveformKind::continuous:
      need_frequency();
      w.ramp = e.has("ramp") ? e.get_double("ramp") : 5.0 / f;
      break;
  }
  return w;
}

void read_sources(const deck::Config& d, Model& m) {
  for (const deck::Config& e : d.get_table_array("fdtd.source")) {
    const auto p = vec3(e.get_double_array("position"));
    check_position(e, p, m);
    SourceSpec s;
    s.node = nearest_node(component_index(e.get_string("component")), p, m);
    s.hard = e.get_string("type") == "hard";
    s.waveform = read_waveform(e);
    s.amplitude = e.get_double("amplitude");
    m.sources.push_back(s);
  }
}

void read_probes(const deck::Config& d, Model& m) {
  m.probe_every = static_cast<int>(d.get_int("fdtd.probes.every"));
  std::set<std::string> names;
  int index = 0;
  for (const deck::Config& e : d.get_table_array("fdtd.probe")) {
    ProbeSpec p;
    p.name = e.has("name") ? e.get_string("name") : fmt::format("probe{}", index);
    ++index;
    if (p.name.empty() || p.name.find_first_of(" ,.\"/") != std::string::npos)
      throw InputError(fmt::format("{}: {}.name \"{}\" must be non-empty without spaces, commas, dots, quotes or "
                                   "slashes (it names columns of probes.h5)",
                                   e.where("name"), e.name(), p.name));
    if (!names.insert(p.name).second)
      throw InputError(fmt::format("{}: probe name \"{}\" is used twice", e.where("name"), p.name));
    const auto pos = vec3(e.get_double_array("position"));
    check_position(e, pos, m);
    for (int c : parse_components(e.get_string("components"), e.where("components")))
      p.nodes.push_back(nearest_node(c, pos, m));
    m.probes.push_back(std::move(p));
  }
}

Index3 cell_floor(const std::array<double, 3>& p, const Model& m) {
  Index3 c;
  for (int a = 0; a < 3; ++a)
    c[a] = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(p[a] / m.cell_size[a] + 1e-9)), 0,
                                    m.cells[a] - 1);
  return c;
}

// A volume's `components`: field components and material quantities, told apart by name.
void volume_components(const deck::Config& e, VolumeSpec& v) {
  const std::string where = e.where("components");
  std::string fields;
  std::istringstream words(e.get_string("components"));
  for (std::string token; std::getline(words, token, ',');) {
    std::istringstream parts(token);
    for (std::string name; parts >> name;) {
      if (const int q = material_quantity_index(name); q >= 0) {
        if (std::find(v.quantities.begin(), v.quantities.end(), q) != v.quantities.end())
          throw InputError(fmt::format("{}: component {} is listed twice", where, name));
        v.quantities.push_back(q);
      } else if (component_index(name) >= 0) {
        fields += name + " ";
      } else {
        std::vector<std::string> names(std::begin(kComponentName), std::end(kComponentName));
        names.insert(names.end(), std::begin(kMaterialQuantityName), std::end(kMaterialQuantityName));
        throw InputError(fmt::format("{}: unknown field component \"{}\" (components: Ex Ey Ez Hx Hy Hz; the material "
                                     "grid: eps_x eps_y eps_z sigma material){}{}",
                                     where, name,
                                     name == "eps" || name == "eps_r"
                                         ? "; the permittivity is per E component: eps_x eps_y eps_z"
                                         : "",
                                     deck::did_you_mean(name, names)));
      }
    }
  }
  if (!fields.empty() || v.quantities.empty()) v.components = parse_components(fields, where);
}

void read_volumes(const deck::Config& d, Model& m) {
  std::set<std::string> names;
  const auto add = [&](VolumeSpec v, const std::string& where) {
    if (!names.insert(v.name).second)
      throw InputError(fmt::format("{}: field output name \"{}\" is used twice", where, v.name));
    m.volumes.push_back(std::move(v));
  };
  const auto volumes = d.get_table_array("fdtd.volume");
  if (volumes.empty()) {
    add({"fields", {kEx, kEy, kEz, kHx, kHy, kHz}, {{0, 0, 0}, m.cells}, {1, 1, 1}, false}, "");
    return;
  }
  for (const deck::Config& e : volumes) {
    VolumeSpec v;
    v.name = e.get_string("name");
    if (v.name.empty() || v.name.find_first_of(" /\\\"") != std::string::npos)
      throw InputError(fmt::format("{}: {}.name \"{}\" must be a non-empty file prefix without spaces, slashes or "
                                   "quotes",
                                   e.where("name"), e.name(), v.name));
    volume_components(e, v);
    v.region = {{0, 0, 0}, m.cells};
    if (e.has("min") || e.has("max")) {
      if (!e.has("min") || !e.has("max"))
        throw InputError(fmt::format("{}: {} needs both 'min' and 'max' for a region", e.location(), e.name()));
      const auto lo = vec3(e.get_double_array("min")), hi = vec3(e.get_double_array("max"));
      check_position(e, lo, m, "min");
      check_position(e, hi, m, "max");
      const Index3 a = cell_floor(lo, m);
      for (int ax = 0; ax < 3; ++ax) {
        if (hi[ax] < lo[ax])
          throw InputError(fmt::format("{}: {}.max is below min along {}", e.where("max"), e.name(), kAxis[ax]));
        // The cells that [min, max] touches; at least one (min == max: a plane).
        const auto top = static_cast<std::int64_t>(std::ceil(hi[ax] / m.cell_size[ax] - 1e-9));
        v.region.lo[ax] = a[ax];
        v.region.hi[ax] = std::clamp<std::int64_t>(top, a[ax] + 1, m.cells[ax]);
      }
    }
    const auto& stride = e.get_int_array("stride");
    for (int a = 0; a < 3; ++a) v.stride[a] = stride[a];
    v.collocated = e.get_bool("collocated");
    add(std::move(v), e.where("name"));
  }
  // A staggered volume also writes <name>_<component>.xmf: no other volume may be called so.
  for (const VolumeSpec& v : m.volumes)
    for (std::size_t j = 0; j < m.volumes.size(); ++j)
      for (int c : v.components)
        if (!v.collocated && m.volumes[j].name == v.name + "_" + kComponentName[c])
          throw InputError(fmt::format("{}: field output name \"{}\" is taken by the per-component XDMF file of "
                                       "the output \"{}\" ({}.xmf); choose another name",
                                       volumes[j].where("name"), m.volumes[j].name, v.name, m.volumes[j].name));
  // A volume with material quantities also writes <name>_materials.xmf.
  for (const VolumeSpec& v : m.volumes)
    for (std::size_t j = 0; j < m.volumes.size(); ++j)
      if (!v.quantities.empty() && m.volumes[j].collocated && m.volumes[j].name == v.name + "_materials")
        throw InputError(fmt::format("{}: field output name \"{}\" is taken by the material grid file of the output "
                                     "\"{}\" ({}.xmf); choose another name",
                                     volumes[j].where("name"), m.volumes[j].name, v.name, m.volumes[j].name));
}

// The cells that [min, max] (m) touches along each axis; at least one (min == max: a plane).
Box region_of(const deck::Config& e, const Model& m, std::array<double, 3>& lo, std::array<double, 3>& hi) {
  lo = vec3(e.get_double_array("min"));
  hi = vec3(e.get_double_array("max"));
  check_position(e, lo, m, "min");
  check_position(e, hi, m, "max");
  Box r;
  const Index3 a = cell_floor(lo, m);
  for (int ax = 0; ax < 3; ++ax) {
    if (hi[ax] < lo[ax])
      throw InputError(fmt::format("{}: {}.max is below min along {}", e.where("max"), e.name(), kAxis[ax]));
    const auto top = static_cast<std::int64_t>(std::ceil(hi[ax] / m.cell_size[ax] - 1e-9));
    r.lo[ax] = a[ax];
    r.hi[ax] = std::clamp<std::int64_t>(top, a[ax] + 1, m.cells[ax]);
  }
  return r;
}

// frequencies = [...] or fmin, fmax, nfreq; every; the Nyquist limit 1 / (2 every dt).
Spectrum read_spectrum(const deck::Config& e, const Model& m) {
  Spectrum s;
  s.every = static_cast<int>(e.get_int("every"));
  const bool list = e.has("frequencies");
  const bool range = e.has("fmin") || e.has("fmax") || e.has("nfreq");
  if (list == range)
    throw InputError(fmt::format("{}: {} needs its frequencies: either 'frequencies = [...]' (Hz) or 'fmin', 'fmax' "
                                 "and 'nfreq'{}",
                                 e.location(), e.name(), list ? ", not both" : ""));
  const char* key = "frequencies";
  if (list) {
    s.frequencies = e.get_double_array("frequencies");
    if (s.frequencies.empty())
      throw InputError(fmt::format("{}: {}.frequencies is empty", e.where("frequencies"), e.name()));
    for (double f : s.frequencies)
      if (!(f >= 0))
        throw InputError(fmt::format("{}: {}.frequencies holds {:g} Hz; frequencies must be >= 0",
                                     e.where("frequencies"), e.name(), f));
  } else {
    for (const char* k : {"fmin", "fmax", "nfreq"})
      if (!e.has(k))
        throw InputError(fmt::format("{}: {} gives a frequency range and needs 'fmin', 'fmax' and 'nfreq' (missing "
                                     "'{}')",
                                     e.location(), e.name(), k));
    const double lo = e.get_double("fmin"), hi = e.get_double("fmax");
    const auto n = e.get_int("nfreq");
    if (hi < lo) throw InputError(fmt::format("{}: {}.fmax is below fmin", e.where("fmax"), e.name()));
    for (std::int64_t i = 0; i < n; ++i)
      s.frequencies.push_back(n == 1 ? lo : lo + (hi - lo) * double(i) / double(n - 1));
    key = "fmax";
  }
  const double nyquist = 1.0 / (2.0 * s.every * m.dt);
  const double top = *std::max_element(s.frequencies.begin(), s.frequencies.end());
  if (top > nyquist)
    throw InputError(fmt::format("{}: {} asks for {:g} Hz, above the Nyquist limit {:g} Hz of its sampling every {} "
                                 "step(s) of dt = {:.6g} s (1 / (2 every dt)); lower the frequency or 'every' (at "
                                 "most {} for this frequency)",
                                 e.where(key), e.name(), top, nyquist, s.every, m.dt,
                                 std::max<std::int64_t>(1, static_cast<std::int64_t>(1.0 / (2.0 * top * m.dt)))));
  return s;
}

void check_name(const deck::Config& e, const std::string& name, std::set<std::string>& names, const char* what) {
  if (name.empty() || name.find_first_of(" /\\\".,") != std::string::npos)
    throw InputError(fmt::format("{}: {}.name \"{}\" must be non-empty without spaces, slashes, dots, commas or "
                                 "quotes (it names files and datasets)",
                                 e.where("name"), e.name(), name));
  if (!names.insert(name).second)
    throw InputError(fmt::format("{}: {} name \"{}\" is used twice", e.where("name"), what, name));
}

void read_dfts(const deck::Config& d, Model& m) {
  std::set<std::string> names;
  for (const deck::Config& e : d.get_table_array("fdtd.dft")) {
    DftSpec s;
    s.name = e.get_string("name");
    check_name(e, s.name, names, "dft monitor");
    s.components = parse_components(e.get_string("components"), e.where("components"));
    s.region = {{0, 0, 0}, m.cells};
    if (e.has("min") || e.has("max")) {
      if (!e.has("min") || !e.has("max"))
        throw InputError(fmt::format("{}: {} needs both 'min' and 'max' for a region", e.location(), e.name()));
      std::array<double, 3> lo, hi;
      s.region = region_of(e, m, lo, hi);
    }
    s.spectrum = read_spectrum(e, m);
    m.dfts.push_back(std::move(s));
  }
}

void read_fluxes(const deck::Config& d, Model& m) {
  std::set<std::string> names;
  for (const deck::Config& e : d.get_table_array("fdtd.flux")) {
    FluxSpec s;
    s.name = e.get_string("name");
    check_name(e, s.name, names, "flux plane");
    std::array<double, 3> lo, hi;
    s.region = region_of(e, m, lo, hi);
    int flat = -1, count = 0;
    for (int a = 0; a < 3; ++a)
      if (hi[a] == lo[a]) {
        flat = a;
        ++count;
      }
    if (count != 1)
      throw InputError(fmt::format("{}: {} must be a plane: min and max equal along exactly one axis (its normal), "
                                   "they are equal along {} axes",
                                   e.where("max"), e.name(), count));
    s.axis = flat;
    // The plane sits on the nearest layer of the tangential E nodes (integer cells along the
    // normal); the tangential H half a cell either side must be inside the grid.
    const std::int64_t n = m.cells[flat];
    std::int64_t layer = std::llround(lo[flat] / m.cell_size[flat]);
    if (m.periodic(flat)) layer %= n;
    else if (layer < 1 || layer > n - 1)
      throw InputError(fmt::format("{}: {} lies on the {} wall of the domain along {}; a flux plane needs a cell of "
                                   "the grid on each side (0 < position < {:g} m)",
                                   e.where("min"), e.name(), layer < 1 ? "low" : "high", kAxis[flat],
                                   double(n) * m.cell_size[flat]));
    s.layer = layer;
    s.region.lo[flat] = layer;
    s.region.hi[flat] = layer + 1;
    s.spectrum = read_spectrum(e, m);
    s.weight = e.get_double("weight");
    if (e.has("subtract")) s.subtract = e.get_string("subtract");
    m.fluxes.push_back(std::move(s));
  }
}

void read_plane_waves(const deck::Config& d, Model& m) {
  for (const deck::Config& e : d.get_table_array("fdtd.plane_wave")) {
    PlaneWaveSpec s;
    s.axis = e.get_string("axis")[0] - 'x';
    s.component = component_index(e.get_string("component"));
    if (s.component == s.axis)
      throw InputError(fmt::format("{}: {}.component {} is normal to the sheet (axis {}); a current sheet drives a "
                                   "tangential component: {} or {}",
                                   e.where("component"), e.name(), kComponentName[s.component], kAxis[s.axis],
                                   kComponentName[(s.axis + 1) % 3], kComponentName[(s.axis + 2) % 3]));
    const double pos = e.get_double("position"), extent = m.cells[s.axis] * m.cell_size[s.axis];
    // The tangential E nodes sit at integer cells along the axis.
    std::int64_t layer = std::llround(pos / m.cell_size[s.axis]);
    if (pos < 0 || pos > extent)
      throw InputError(fmt::format("{}: {}.position {:g} m lies outside the domain 0 .. {:g} m along {}",
                                   e.where("position"), e.name(), pos, extent, kAxis[s.axis]));
    if (m.periodic(s.axis)) layer %= m.cells[s.axis];
    else if (layer < 1 || layer > m.cells[s.axis] - 1)
      throw InputError(fmt::format("{}: {}.position {:g} m lies on a wall along {}, where the tangential E is held "
                                   "at zero; move the sheet inside the grid",
                                   e.where("position"), e.name(), pos, kAxis[s.axis]));
    s.layer = layer;
    s.waveform = read_waveform(e);
    s.amplitude = e.get_double("amplitude");
    m.plane_waves.push_back(s);
  }
}

// The box snaps to node planes; it must stay 2 cells clear of every non-periodic face and of
// the CPML (the scattered field around it needs room), the background must be a plain
// dielectric (the 1D incident grid uses it), and the box must be at least a cell thick.
void read_tfsf(const deck::Config& d, Model& m) {
  const auto& list = d.get_table_array("fdtd.tfsf");
  if (list.size() > 1)
    throw InputError(fmt::format("{}: at most one [[fdtd.tfsf]] box per run (this deck has {})",
                                 list[1].location(), list.size()));
  for (const deck::Config& e : list) {
    TfsfSpec s;
    s.axis = e.get_string("axis")[0] - 'x';
    s.dir = e.get_string("direction") == "-" ? -1 : 1;
    s.component = component_index(e.get_string("component"));
    if (s.component == s.axis)
      throw InputError(fmt::format("{}: {}.component {} is along the propagation axis {}; a plane wave's E is "
                                   "tangential: {} or {}",
                                   e.where("component"), e.name(), kComponentName[s.component], kAxis[s.axis],
                                   kComponentName[(s.axis + 1) % 3], kComponentName[(s.axis + 2) % 3]));
    const auto lo = vec3(e.get_double_array("min")), hi = vec3(e.get_double_array("max"));
    for (int a = 0; a < 3; ++a) {
      s.box.lo[a] = std::llround(lo[a] / m.cell_size[a]);
      s.box.hi[a] = std::llround(hi[a] / m.cell_size[a]);
      const std::int64_t margin_lo = 2 + m.cpml_cells(a, 0), margin_hi = 2 + m.cpml_cells(a, 1);
      if (s.box.hi[a] - s.box.lo[a] < 1)
        throw InputError(fmt::format("{}: {} is {} cells thick along {} (min {:g}, max {:g} m); it needs at least one",
                                     e.where("max"), e.name(), s.box.hi[a] - s.box.lo[a], kAxis[a], lo[a], hi[a]));
      if (!m.periodic(a) && (s.box.lo[a] < margin_lo || s.box.hi[a] > m.cells[a] - margin_hi))
        throw InputError(fmt::format("{}: {} spans cells {} .. {} along {}; it must stay inside {} .. {} (2 cells clear "
                                     "of the walls and the CPML)",
                                     e.where("min"), e.name(), s.box.lo[a], s.box.hi[a], kAxis[a], margin_lo,
                                     m.cells[a] - margin_hi));
      if (m.periodic(a) && (s.box.lo[a] < 1 || s.box.hi[a] > m.cells[a] - 1))
        throw InputError(fmt::format("{}: {} spans cells {} .. {} along the periodic axis {}; keep it inside 1 .. {}",
                                     e.where("min"), e.name(), s.box.lo[a], s.box.hi[a], kAxis[a], m.cells[a] - 1));
    }
    const MaterialSpec& bg = m.materials[static_cast<std::size_t>(m.background)];
    if (bg.pec || bg.dispersive())
      throw InputError(fmt::format("{}: {} needs a plain dielectric background for its incident wave; fdtd.background "
                                   "= \"{}\" is {}",
                                   e.location(), e.name(), bg.name, bg.pec ? "a perfect conductor" : "dispersive"));
    s.waveform = read_waveform(e);
    s.amplitude = e.get_double("amplitude");
    m.tfsf.push_back(s);
  }
}

}  // namespace

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

Index3 VolumeSpec::samples() const {
  Index3 s;
  for (int a = 0; a < 3; ++a) s[a] = (region.extent(a) + stride[a] - 1) / stride[a];
  return s;
}

Index3 VolumeSpec::samples(int component, const Index3& cells) const {
  Index3 s = samples();
  const auto offset = staggering(component);
  for (int a = 0; a < 3; ++a)
    if (offset[a] == 0 && region.hi[a] == cells[a] && region.extent(a) > 1 && region.extent(a) % stride[a] == 0) ++s[a];
  return s;
}

double courant_limit(const std::array<double, 3>& d) {
  return 1.0 / (kC0 * std::sqrt(1 / (d[0] * d[0]) + 1 / (d[1] * d[1]) + 1 / (d[2] * d[2])));
}

Node nearest_node(int component, const std::array<double, 3>& position, const Model& m) {
  Node n{component, {}};
  const auto off = staggering(component);
  for (int a = 0; a < 3; ++a)
    n.cell[a] = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(std::floor(position[a] / m.cell_size[a] - off[a] + 0.5)), 0, m.cells[a] - 1);
  return n;
}

std::vector<int> parse_components(const std::string& text, const std::string& where) {
  std::vector<int> out;
  std::string token;
  const auto flush = [&] {
    if (token.empty()) return;
    const int c = component_index(token);
    if (c < 0) {
      std::vector<std::string> names(std::begin(kComponentName), std::end(kComponentName));
      throw InputError(fmt::format("{}: unknown field component \"{}\" (components: Ex Ey Ez Hx Hy Hz){}", where, token,
                                   deck::did_you_mean(token, names)));
    }
    if (std::find(out.begin(), out.end(), c) != out.end())
      throw InputError(fmt::format("{}: component {} is listed twice", where, token));
    out.push_back(c);
    token.clear();
  };
  for (char ch : text) {
    if (ch == ' ' || ch == ',' || ch == '\t') flush();
    else token += ch;
  }
  flush();
  if (out.empty()) throw InputError(fmt::format("{}: no field component given (e.g. \"Ex Ey Ez\")", where));
  return out;
}

Model params_from_deck(const deck::Config& d) {
  Model m;
  read_grid(d, m);
  read_boundaries(d, m);
  read_materials(d, m);
  read_geometry(d, m);
  read_sources(d, m);
  read_probes(d, m);
  read_volumes(d, m);
  read_dfts(d, m);
  read_fluxes(d, m);
  read_plane_waves(d, m);
  read_tfsf(d, m);
  return m;
}

}  // namespace tessera::fdtd
