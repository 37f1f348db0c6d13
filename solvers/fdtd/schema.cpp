#include "solvers/fdtd/schema.hpp"

#include <string_view>

namespace tessera::fdtd {
namespace {

// What a table's waveform drives: the meaning of its `amplitude` and the amplitude's unit
// ("" where it depends on another key), and the instant its `delay` places the pulse peak.
struct WaveformUse {
  std::string_view amplitude;
  std::string_view amplitude_unit = "";
  std::string_view delay = "time of the pulse peak";
};

// The waveform keys of [[fdtd.source]], [[fdtd.plane_wave]] and [[fdtd.tfsf]] (params.cpp's
// read_waveform reads them): declared once so the three tables cannot drift apart.
void add_waveform_keys(deck::TableBuilder t, const WaveformUse& use) {
  deck::KeyBuilder amplitude =
      t.choice("waveform", "time dependence", {"gaussian", "modulated_gaussian", "ricker", "continuous"})
          .default_value("gaussian")
          .floating("amplitude", use.amplitude)
          .default_value(1.0);
  if (!use.amplitude_unit.empty()) amplitude.unit(use.amplitude_unit);
  amplitude.floating("frequency", "carrier (modulated_gaussian, continuous) or peak (ricker) frequency").unit("Hz")
      .greater_than(0).optional()
      .floating("width", "gaussian envelope width tau in exp(-((t-delay)/tau)^2)").unit("s").greater_than(0)
      .optional()
      .floating("delay", use.delay).unit("s").min(0).optional()
      .floating("ramp", "continuous: duration of the raised-cosine turn-on").unit("s").greater_than(0).optional();
}

}  // namespace

deck::Schema schema() {
  deck::Schema s;
  s.table("fdtd", "3D Yee FDTD electromagnetics (SI units)")
      .integer_array("cells", "grid cells along x, y, z").length(3).min(1).default_value(deck::IntArray{32, 32, 32})
      .float_array("cell_size", "cell edge lengths dx, dy, dz").length(3).unit("m").greater_than(0)
      .default_value({1e-3, 1e-3, 1e-3})
      .floating("courant", "time step as a fraction of the 3D Courant limit (stable up to 1)").greater_than(0)
      .default_value(0.99)
      .floating("dt", "time step; overrides courant and must not exceed the Courant limit").unit("s").greater_than(0)
      .optional()
      .string("background", "material filling the grid before [[fdtd.geometry]] is applied").default_value("vacuum")
      .integer_array("ranks", "ranks along x, y, z (0: chosen by MPI_Dims_create, the most on z; with sweep = \"blocked\", "
                               "z alone where each rank then holds block_steps layers)").length(3).min(0)
      .default_value(deck::IntArray{0, 0, 0})
      .choice("sweep",
              "bulk update: fused (H and E in one pass over memory, the cuda backend without a TFSF box or "
              "dispersive materials: 1.5x fewer bytes, twice the field memory), split (an H pass, then an E pass: "
              "every case), blocked (block_steps steps per pass over memory, cuda (cpu: a reference pass, not faster): ranks "
              "along z only, no TFSF box or dispersive materials, CPML on one rank only (its corrections inside the "
              "pass), and steps at which no source, probe or monitor acts; other steps fused), or auto (blocked on one "
              "rank or a z cut where it applies, no source acts every step and CPML slabs hold at most 15% of the "
              "cells, else fused where it applies and fits, else split); the fields are bitwise the same",
              {"auto", "fused", "split", "blocked"})
      .default_value("auto")
      .integer("block_steps",
               "the blocked sweep's steps per pass over memory (2 to 4): 48/k bytes per cell-update plus its "
               "tiles' halo, against more recomputed halo cells per tile; unset: 4 (the fastest on an H100 and an "
               "H200), or 3 with CPML slabs (the fastest on an H200: their corrections make the pass bound by "
               "instruction issue, and 3 steps recompute fewer halo cells) (docs/fdtd.md)")
      .min(2)
      .max(4)
      .optional()
      .boolean("smoothing",
               "sub-pixel smoothing: E nodes next to a dielectric interface see the anisotropic average of the two "
               "media over a cell (second order in the cell size instead of the staircase's first); off by default, "
               "so that earlier decks and checkpoints keep their bits (docs/fdtd.md)")
      .default_value(false);
  const std::vector<std::string> faces{"pec", "periodic", "cpml"};
  auto b = s.table("fdtd.boundary", "boundary of each face: pec, periodic (both faces of an axis) or cpml");
  for (const char* face : {"x_low", "x_high", "y_low", "y_high", "z_low", "z_high"})
    b.choice(face, "boundary condition of this face", faces).default_value("pec");
  s.table("fdtd.cpml", "convolutional PML on the cpml faces (backed by a PEC wall)")
      .integer("thickness", "PML cells per cpml face").min(1).default_value(10)
      .floating("order", "polynomial grading order m of sigma and kappa").min(0).default_value(3.0)
      .floating("R0", "reflection coefficient at normal incidence that sets sigma_max").greater_than(0).less_than(1)
      .default_value(1e-6)
      .floating("kappa_max", "coordinate stretching at the outer wall").min(1).default_value(1.0)
      .floating("alpha_max", "complex-frequency shift at the PML interface (falls to 0 at the wall)").unit("S/m")
      .min(0).default_value(0.0);
  s.table("fdtd.probes", "point probes, written to probes.h5")
      .integer("every", "sample the probes every this many steps").min(1).default_value(1);
  s.array_table("fdtd.material", "a material: relative permittivity, conductivity and optional Drude and Lorentz poles")
      .string("name", "name used by [fdtd] background and [[fdtd.geometry]] (vacuum and pec are built in)")
      .floating("eps_r", "relative permittivity").greater_than(0).default_value(1.0)
      .floating("sigma", "electric conductivity").unit("S/m").min(0).default_value(0.0)
      // Poles (docs/fdtd.md, "Dispersive materials"): eps(f) = eps_r - sum fp^2 / (f^2 + i f gamma)
      // + sum delta_eps f0^2 / (f0^2 - f^2 - i f gamma), all frequencies ordinary (Hz).
      .float_array("drude_frequency", "Drude poles: plasma frequency f_p of each (eps_r is eps_inf)").unit("Hz")
      .greater_than(0).optional()
      .float_array("drude_damping", "Drude poles: collision frequency gamma of each (angular gamma / 2 pi; "
                   "default 0)").unit("Hz").min(0).optional()
      .float_array("lorentz_delta_eps", "Lorentz poles: permittivity step delta_eps of each").greater_than(0).optional()
      .float_array("lorentz_frequency", "Lorentz poles: resonance frequency f_0 of each").unit("Hz").greater_than(0)
      .optional()
      .float_array("lorentz_damping", "Lorentz poles: damping gamma of each (angular gamma / 2 pi; default 0)")
      .unit("Hz").min(0).optional();
  s.array_table("fdtd.geometry", "a shape filled with a material; later shapes overwrite earlier ones")
      .choice("shape", "shape of the object: box, sphere, cylinder, mesh (a closed STL surface) or voxels (an HDF5 "
                       "array of material numbers or of eps_r)",
              {"box", "sphere", "cylinder", "mesh", "voxels"})
      .string("material", "material name (voxels: only with an eps_r dataset, the material it modifies)").optional()
      .float_array("min", "box: lower corner").length(3).unit("m").optional()
      .float_array("max", "box: upper corner").length(3).unit("m").optional()
      .float_array("center", "sphere, cylinder: centre").length(3).unit("m").optional()
      .floating("radius", "sphere, cylinder: radius").unit("m").greater_than(0).optional()
      .choice("axis", "cylinder: axis direction", {"x", "y", "z"}).default_value("z")
      .floating("length", "cylinder: length along its axis").unit("m").greater_than(0).optional()
      .string("file", "mesh: the STL file (binary or ASCII); voxels: the HDF5 file").file().optional()
      .floating("scale", "mesh: metres per STL unit (1e-3 for a file in millimetres)").greater_than(0)
      .default_value(1.0)
      .float_array("rotate", "mesh: rotation about x, then y, then z").length(3).unit("degrees")
      .default_value(deck::FloatArray{0, 0, 0})
      .float_array("translate", "mesh: shift applied after scale and rotation").length(3).unit("m")
      .default_value(deck::FloatArray{0, 0, 0})
      .string("dataset", "voxels: the 3D dataset, indexed [z][y][x] (x fastest, as tessera writes fields): integers "
                         "are material numbers, floats eps_r").default_value("materials")
      .float_array("origin", "voxels: the low corner of voxel [0][0][0]").length(3).unit("m")
      .default_value(deck::FloatArray{0, 0, 0})
      .float_array("voxel_size", "voxels: edge lengths of one voxel (default: the cell size)").length(3).unit("m")
      .greater_than(0).optional()
      .string("materials", "voxels with material numbers: the material of number 0, 1, ... in order, separated by "
                           "spaces (\"vacuum glass\")").optional();
  add_waveform_keys(
      s.array_table("fdtd.source", "a point electric dipole at the nearest node of its component")
          .float_array("position", "where the dipole sits").length(3).unit("m")
          .choice("component", "field component it drives", {"Ex", "Ey", "Ez"}).default_value("Ez")
          .choice("type", "soft: a current I*l adds to the update; hard: the field is set", {"soft", "hard"})
          .default_value("soft"),
      {.amplitude = "soft: current moment I*l (A m); hard: field (V/m)"});
  s.array_table("fdtd.probe", "a point probe: time series of chosen components")
      .string("name", "column prefix in probes.h5 (default probe<N>)").optional()
      .float_array("position", "probe position (each component at its nearest node)").length(3).unit("m")
      .string("components", "components to record, e.g. \"Ez\" or \"Ex Ey Ez Hx Hy Hz\"").default_value("Ex Ey Ez");
  s.array_table("fdtd.volume", "a field output: a volume or plane of chosen components at each [output] step")
      .string("name", "file prefix: <name>_<step>.h5 and <name>.xmf").default_value("fields")
      .string("components", "components to write: fields Ex Ey Ez Hx Hy Hz (every output), and the material grid "
                            "eps_x eps_y eps_z sigma material (once, at the start: <name>_materials.h5)")
      .default_value("Ex Ey Ez Hx Hy Hz")
      .float_array("min", "lower corner of the region (default: the domain)").length(3).unit("m").optional()
      .float_array("max", "upper corner (equal to min along an axis: a plane)").length(3).unit("m").optional()
      .integer_array("stride", "write every n-th cell along x, y, z").length(3).min(1)
      .default_value(deck::IntArray{1, 1, 1})
      .boolean("collocated",
               "false: each component on its own Yee nodes; true: cell-centred vectors E and H (of the fields "
               "that components names) on one grid")
      .default_value(false);
  // Spectral monitors: the frequency keys of [[fdtd.dft]] and [[fdtd.flux]].
  const auto frequencies = [](deck::TableBuilder t) {
    t.float_array("frequencies", "frequencies of the transform (or give fmin, fmax, nfreq)").unit("Hz").min(0)
        .optional()
        .floating("fmin", "lowest frequency of an evenly spaced range").unit("Hz").min(0).optional()
        .floating("fmax", "highest frequency of the range").unit("Hz").min(0).optional()
        .integer("nfreq", "frequencies in the range (1: fmin alone)").min(1).optional()
        .integer("every", "accumulate every this many steps (frequencies up to 1 / (2 every dt))").min(1)
        .default_value(1);
  };
  frequencies(s.array_table("fdtd.dft", "running DFTs of field components over a box or plane, written to "
                                        "<name>_dft.h5")
                  .string("name", "file prefix: <name>_dft.h5, <name>_dft_f<index>.xmf")
                  .string("components", "components to transform").default_value("Ex Ey Ez Hx Hy Hz")
                  .float_array("min", "lower corner of the region (default: the domain)").length(3).unit("m")
                  .optional()
                  .float_array("max", "upper corner (equal to min along an axis: a plane)").length(3).unit("m")
                  .optional());
  frequencies(s.array_table("fdtd.flux", "Poynting flux spectrum through an axis-normal plane, written to flux.h5")
                  .string("name", "table name in flux.h5")
                  .float_array("min", "lower corner of the plane").length(3).unit("m")
                  .float_array("max", "upper corner: equal to min along the normal").length(3).unit("m")
                  .floating("weight", "factor on the flux along +normal (-1: count it along -normal)")
                  .default_value(1.0)
                  .string("subtract", "flux.h5 of an earlier run (the empty one): its DFT fields on this plane are "
                                      "subtracted first, leaving the scattered/reflected flux")
                  .file()
                  .optional());
  add_waveform_keys(
      s.array_table("fdtd.plane_wave",
                    "a uniform electric current sheet over a whole axis-normal plane (normal incidence)")
          .choice("axis", "normal of the sheet (the direction the waves travel)", {"x", "y", "z"}).default_value("z")
          .floating("position", "where the sheet sits along the axis (nearest E-node layer)").unit("m").min(0)
          .choice("component", "tangential E component the current drives (the polarisation)", {"Ex", "Ey", "Ez"})
          .default_value("Ex"),
      {.amplitude = "surface current density K (A/m); each side gets E = eta K / 2"});
  add_waveform_keys(
      s.array_table("fdtd.tfsf",
                    "a total-field/scattered-field box: a plane wave at normal incidence along an axis exists inside "
                    "the box only (at most one)")
          .float_array("min", "lower corner (snapped to the nearest node planes)").length(3).unit("m")
          .float_array("max", "upper corner (snapped to the nearest node planes)").length(3).unit("m")
          .choice("axis", "propagation axis", {"x", "y", "z"}).default_value("z")
          .choice("direction", "propagation along +axis or -axis", {"+", "-"}).default_value("+")
          .choice("component", "E component of the incident wave (tangential to axis: the polarisation)",
                  {"Ex", "Ey", "Ez"})
          .default_value("Ex"),
      {.amplitude = "incident E amplitude",
       .amplitude_unit = "V/m",
       .delay = "time of the pulse peak at the box face the wave enters"});
  return s;
}

}  // namespace tessera::fdtd
