#include "solvers/fdtd/state_io.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/h5.hpp"
#include "solvers/fdtd/dispersion.hpp"
#include "solvers/fdtd/spectra_io.hpp"

namespace tessera::fdtd {
namespace {

io::Box3 field_box(const LocalDomain& d) { return {d.global, d.offset, d.n}; }
io::Strided3 field_memory(const Layout& l) { return {{l.pitch, l.rows, l.planes}, {1, 1, 1}}; }

// The slab's part on this rank, in the slab's own global coordinates.
io::Box3 slab_box(const CpmlSlab& s, const LocalDomain& d) {
  io::Box3 b;
  for (int a = 0; a < 3; ++a) b.global[a] = s.global.extent(a);
  if (s.local.empty()) return b;
  for (int a = 0; a < 3; ++a) {
    b.offset[a] = s.local.lo[a] + d.offset[a] - s.global.lo[a];
    b.size[a] = s.local.extent(a);
  }
  return b;
}

// This rank's part of the J / P arrays in the global dispersive bounds (the dataset's shape,
// independent of the decomposition).
io::Box3 dispersion_box3(const Model& m, const Box& local, const LocalDomain& d) {
  const Box global = dispersive_bounds(m);
  io::Box3 b;
  for (int a = 0; a < 3; ++a) b.global[a] = global.extent(a);
  if (local.empty()) return b;
  for (int a = 0; a < 3; ++a) {
    b.offset[a] = local.lo[a] + d.offset[a] - global.lo[a];
    b.size[a] = local.extent(a);
  }
  return b;
}

// The polarisation arrays in use: (slot, which) pairs, which 0 for J, 1 for P.
std::vector<std::pair<int, int>> polarisation_arrays(const Model& m) {
  std::vector<std::pair<int, int>> out;
  if (dispersive_bounds(m).empty()) return out;
  std::array<bool, kMaxPoles> lorentz{};
  const int slots = pole_slots(m, lorentz);
  for (int s = 0; s < slots; ++s) {
    out.emplace_back(s, 0);
    if (lorentz[static_cast<std::size_t>(s)]) out.emplace_back(s, 1);
  }
  return out;
}

std::string polarisation_name(int slot, int which, int comp) {
  return fmt::format("{}{}_{}", which == 0 ? "J" : "P", slot, kComponentName[comp]);
}

// The 1D incident grid as an n x 1 x 1 dataset: written by the rank holding cell 0, read by all.
io::Box3 tfsf_box(const std::vector<float>& v, const LocalDomain& d, bool writing) {
  io::Box3 b;
  b.global = {static_cast<std::int64_t>(v.size()), 1, 1};
  if (!writing || (d.offset[0] == 0 && d.offset[1] == 0 && d.offset[2] == 0)) b.size = b.global;
  return b;
}

std::vector<std::int64_t> faces_code(const Model& m) {
  std::vector<std::int64_t> v;
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s) v.push_back(static_cast<std::int64_t>(m.faces[a][s]));
  return v;
}

std::vector<std::int64_t> cells_of(const Model& m) { return {m.cells[0], m.cells[1], m.cells[2]}; }

}  // namespace

void write_state(io::CheckpointWriter& out, Stepper& stepper) {
  const Model& m = stepper.model();
  const LocalDomain& d = stepper.domain();
  Engine& engine = stepper.engine();
  const io::Group& root = out.root();
  io::write_attribute(root, "fdtd_cells", cells_of(m));
  io::write_attribute(root, "fdtd_dt", m.dt);
  io::write_attribute(root, "fdtd_faces", faces_code(m));
  io::write_attribute(root, "fdtd_cpml_thickness", static_cast<std::int64_t>(m.cpml.thickness));
  {
    const io::Group fields = root.create_group("fields");
    std::vector<float> host(static_cast<std::size_t>(engine.layout().elements()));
    for (int c = 0; c < kComponents; ++c) {
      engine.download(c, host);
      io::write_units(
          io::write_3d_checked<float>(fields, kComponentName[c], host, field_box(d), field_memory(engine.layout())),
          kComponentUnits[c]);
    }
  }
  const auto& slabs = stepper.slabs();
  for (std::size_t s = 0; s < slabs.size(); ++s) {
    const io::Group g = root.create_group("cpml/" + slabs[s].name());
    const io::Box3 box = slab_box(slabs[s], d);
    std::vector<float> host(static_cast<std::size_t>(box.volume()));
    for (int w = 0; w < 4; ++w) {
      engine.download_psi(static_cast<int>(s), w, host);
      // psi0, psi1 correct E and hold differences of H; psi2, psi3 correct H, differences of E.
      io::write_units(io::write_3d_checked<float>(g, fmt::format("psi{}", w), host, box, io::Strided3::dense(box.size)),
                      w < 2 ? "A/m" : "V/m");
    }
  }
  // Dispersive materials: each pole slot's J (and P) per E component, over the global bounds.
  const auto pol = polarisation_arrays(m);
  if (!pol.empty()) {
    const io::Group g = root.create_group("dispersion");
    const io::Box3 box = dispersion_box3(m, stepper.dispersion_io_box(), d);
    const bool arrays = !stepper.dispersion_box().empty();
    std::vector<float> host(static_cast<std::size_t>(box.volume()), 0.0f);
    for (const auto& [slot, which] : pol)
      for (int c = 0; c < 3; ++c) {
        if (arrays) engine.download_polarisation(slot, which, c, host);
        io::write_units(io::write_3d_checked<float>(g, polarisation_name(slot, which, c), host, box,
                                                    io::Strided3::dense(box.size)),
                        which == 0 ? "A/m^2" : "C/m^2");
      }
  }
  // The TFSF box's 1D incident grid (the same on every rank: the rank holding cell 0 writes it).
  if (Tfsf* t = stepper.tfsf()) {
    const io::Group g = root.create_group("tfsf");
    for (const auto& [name, v] : std::initializer_list<std::pair<const char*, std::vector<float>*>>{{"e1", &t->e1()},
                                                                                             {"h1", &t->h1()}}) {
      const io::Box3 box = tfsf_box(*v, d, true);
      const std::span<const float> part(v->data(), static_cast<std::size_t>(box.volume()));
      io::write_units(io::write_3d_checked<float>(g, name, part, box, io::Strided3::dense(box.size)),
                      name[0] == 'e' ? "V/m" : "A/m");
    }
  }
  // The running DFTs: float64 sums, restored exactly (spectra_io.hpp).
  Spectra& spectra = stepper.spectra();
  for (std::size_t i = 0; i < spectra.dfts().size(); ++i)
    write_monitor(root.create_group("dft/" + m.dfts[i].name), "", spectra.dfts()[i], engine);
  for (std::size_t i = 0; i < spectra.fluxes().size(); ++i)
    write_monitor(root.create_group("flux/" + m.fluxes[i].name), "", spectra.fluxes()[i], engine);
}

void read_state(io::CheckpointReader& in, Stepper& stepper) {
  const Model& m = stepper.model();
  const LocalDomain& d = stepper.domain();
  Engine& engine = stepper.engine();
  const io::Group& root = in.root();
  const auto mismatch = [&](const std::string& what, const std::string& was, const std::string& now) {
    return InputError(fmt::format("checkpoint {} was written with {} {}, this deck has {}: restart with the deck of "
                                  "that run",
                                  in.path().string(), what, was, now));
  };
  const auto cells = io::read_attribute<std::vector<std::int64_t>>(root, "fdtd_cells");
  if (cells != cells_of(m))
    throw mismatch("fdtd.cells", fmt::format("{}", fmt::join(cells, "x")), fmt::format("{}", fmt::join(cells_of(m), "x")));
  const double dt = io::read_attribute<double>(root, "fdtd_dt");
  if (dt != m.dt) throw mismatch("time step", fmt::format("{:.17g} s", dt), fmt::format("{:.17g} s", m.dt));
  if (io::read_attribute<std::vector<std::int64_t>>(root, "fdtd_faces") != faces_code(m) ||
      io::read_attribute<std::int64_t>(root, "fdtd_cpml_thickness") != m.cpml.thickness)
    throw mismatch("boundaries", "other [fdtd.boundary] faces or cpml thickness", "these");

  std::vector<float> host(static_cast<std::size_t>(engine.layout().elements()), 0.0f);
  for (int c = 0; c < kComponents; ++c) {
    engine.download(c, host);  // keeps the ghost cells as they are (zero at the walls)
    io::read_3d_checked<float>(root, std::string("fields/") + kComponentName[c], host, field_box(d),
                               field_memory(engine.layout()));
    engine.upload(c, host);
  }
  const auto& slabs = stepper.slabs();
  for (std::size_t s = 0; s < slabs.size(); ++s) {
    const io::Box3 box = slab_box(slabs[s], d);
    std::vector<float> psi(static_cast<std::size_t>(box.volume()));
    for (int w = 0; w < 4; ++w) {
      io::read_3d_checked<float>(root, fmt::format("cpml/{}/psi{}", slabs[s].name(), w), psi, box,
                                 io::Strided3::dense(box.size));
      engine.upload_psi(static_cast<int>(s), w, psi);
    }
  }
  const auto pol = polarisation_arrays(m);
  if (!pol.empty()) {
    const io::Box3 box = dispersion_box3(m, stepper.dispersion_io_box(), d);
    const bool arrays = !stepper.dispersion_box().empty();
    std::vector<float> host(static_cast<std::size_t>(box.volume()));
    for (const auto& [slot, which] : pol)
      for (int c = 0; c < 3; ++c) {
        io::read_3d_checked<float>(root, "dispersion/" + polarisation_name(slot, which, c), host, box,
                                   io::Strided3::dense(box.size));
        if (arrays) engine.upload_polarisation(slot, which, c, host);
      }
  }
  if (Tfsf* t = stepper.tfsf())
    for (const auto& [name, v] : std::initializer_list<std::pair<const char*, std::vector<float>*>>{{"e1", &t->e1()},
                                                                                             {"h1", &t->h1()}}) {
      // The checked read verifies the checksum on the rank that wrote it (the boxes must cover
      // the dataset once); then every rank reads the whole small array.
      const io::Box3 part = tfsf_box(*v, d, true), all = tfsf_box(*v, d, false);
      io::read_3d_checked<float>(root, std::string("tfsf/") + name,
                                 std::span<float>(v->data(), static_cast<std::size_t>(part.volume())), part,
                                 io::Strided3::dense(part.size));
      io::read_3d<float>(root, std::string("tfsf/") + name, *v, all, io::Strided3::dense(all.size));
    }
  Spectra& spectra = stepper.spectra();
  for (std::size_t i = 0; i < spectra.dfts().size(); ++i)
    read_monitor(root.open_group("dft/" + m.dfts[i].name), "", spectra.dfts()[i], engine);
  for (std::size_t i = 0; i < spectra.fluxes().size(); ++i)
    read_monitor(root.open_group("flux/" + m.fluxes[i].name), "", spectra.fluxes()[i], engine);
  stepper.set_step(in.manifest().step);
}

}  // namespace tessera::fdtd
