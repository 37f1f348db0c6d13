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
#include "solvers/fdtd/material_quantity.hpp"
#include "solvers/fdtd/params_read.hpp"

namespace tessera::fdtd {
namespace {

using params_detail::kAxis;
using params_detail::vec3;
constexpr const char* kFaceKey[3][2] = {{"x_low", "x_high"}, {"y_low", "y_high"}, {"z_low", "z_high"}};

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
  m.block_steps = d.has("fdtd.block_steps") ? static_cast<int>(d.get_int("fdtd.block_steps")) : 0;
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
    add({"fields", {kEx, kEy, kEz, kHx, kHy, kHz}, {{0, 0, 0}, m.cells}, {1, 1, 1}, false, {}}, "");
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
  params_detail::read_materials(d, m);
  params_detail::read_geometry(d, m);
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
