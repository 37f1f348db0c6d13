// A volume's fields as an openPMD 1.1.0 file (io/openpmd.hpp): meshes E and H, one dataset per
// component the volume writes, all on the volume's samples (VolumeSpec::samples(): no extra
// wall node, so the components of a record share one shape, as the standard's mesh record
// does). Datasets are (nx, ny, nz), axisLabels ("x", "y", "z"), dataOrder "C": the first index
// is x, the order yt's open_pmd frontend assumes. Each component's `position` is its Yee
// offset in units of gridSpacing (the cell centre, 0.5 / stride, for a collocated volume).
#include <algorithm>

#include "io/box3.hpp"
#include "io/checked_io.hpp"
#include "io/openpmd.hpp"
#include "solvers/fdtd/field_output.hpp"

namespace tessera::fdtd {

void FieldWriter::write_openpmd(const Series& s, std::int64_t step, double t) {
  namespace opmd = io::openpmd;
  const VolumeSpec& v = *s.spec;
  const Index3 samples = v.samples();
  Index3 first, count;
  local_range(v, samples, false, first, count);
  // Box3 takes (fastest, ..., slowest) and writes (slowest, ..., fastest): z first gives (nx, ny, nz).
  const io::Box3 box{{samples[2], samples[1], samples[0]}, {first[2], first[1], first[0]}, {count[2], count[1], count[0]}};
  const auto local = [&](int a, std::int64_t m) { return v.region.lo[a] + (first[a] + m) * v.stride[a] - domain_.offset[a]; };

  // One directory per series: openPMD-viewer reads a directory as one series.
  opmd::SeriesFile file(ctx_, dir_ / "openpmd" / v.name, v.name, static_cast<std::uint64_t>(step), {.meshes = true});
  {
    const io::Group it = file.iteration(t, model_.dt, 1.0);
    for (const bool electric : {true, false}) {
      const int base = electric ? kEx : kHx;
      std::vector<int> comps;
      for (int c = base; c < base + 3; ++c)
        if (v.collocated || std::find(v.components.begin(), v.components.end(), c) != v.components.end())
          comps.push_back(c);
      if (v.collocated &&
          std::none_of(v.components.begin(), v.components.end(), [&](int c) { return (c < kHx) == electric; }))
        comps.clear();
      if (comps.empty()) continue;
      const io::Group record = it.create_group(electric ? "meshes/E" : "meshes/H");
      opmd::Mesh mesh;
      for (int a = 0; a < 3; ++a) {
        mesh.grid_spacing[a] = double(v.stride[a]) * model_.cell_size[a];
        mesh.grid_global_offset[a] = double(v.region.lo[a]) * model_.cell_size[a];
      }
      mesh.unit_dimension = electric ? opmd::kElectricField : opmd::kMagneticFieldH;
      mesh.time_offset = electric ? 0.0 : -0.5 * model_.dt;  // H is half a step behind E
      opmd::write_mesh(record, mesh);
      for (int c : comps) {
        std::vector<float> data(static_cast<std::size_t>(count[0] * count[1] * count[2]));
        std::size_t at = 0;
        for (std::int64_t i = 0; i < count[0]; ++i)
          for (std::int64_t j = 0; j < count[1]; ++j)
            for (std::int64_t k = 0; k < count[2]; ++k) {
              const std::int64_t li = local(0, i), lj = local(1, j), lk = local(2, k);
              data[at++] = v.collocated ? centred(c, li, lj, lk)
                                        : host_[c][static_cast<std::size_t>(layout_.at(li, lj, lk))];
            }
        const char axis[2] = {char('x' + (c - base)), '\0'};
        const io::Dataset d = io::write_3d_checked<float>(record, axis, data, box, io::Strided3::dense(box.size));
        std::array<double, 3> position = v.collocated ? std::array<double, 3>{0.5, 0.5, 0.5} : staggering(c);
        for (int a = 0; a < 3; ++a) position[a] /= double(v.stride[a]);
        opmd::write_component(d, 1.0, position);
      }
    }
  }
  file.commit();
}

}  // namespace tessera::fdtd
