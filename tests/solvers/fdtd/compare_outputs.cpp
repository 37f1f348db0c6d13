// fdtd_compare_outputs REF_DIR TEST_DIR STEP [TOL]: the field file of STEP (all six components)
// and the probe samples of probes.h5 must be bitwise equal (TOL given: |test - ref| <= TOL
// max |ref| per dataset), the energies equal to 1e-9 (they are sums over ranks) or TOL. Prints
// what differs; exit code 0 when everything matches, 1 otherwise. The spectra too, where the
// reference has them: every dataset of each <name>_dft.h5 (float64 running DFTs) and of
// flux.h5 (the spectrum tables and the planes' DFTs), bitwise or within TOL.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "comm/context.hpp"
#include "comm/errors.hpp"
#include "io/h5.hpp"

using namespace tessera;

namespace {

std::vector<float> read_all(comm::Context& ctx, const std::filesystem::path& file, const std::string& name) {
  io::File f = io::File::open(ctx, file);
  const auto ext = io::dataset_extent(f.root(), name);
  const io::Index3 g{ext[2], ext[1], ext[0]};
  std::vector<float> v(static_cast<std::size_t>(g[0] * g[1] * g[2]));
  io::read_3d<float>(f.root(), name, v, {g, {0, 0, 0}, g}, io::Strided3::dense(g));
  return v;
}

// Whether b matches a: bitwise for tol = 0, else within tol of max |a|.
template <class T>
bool matches(const std::vector<T>& a, const std::vector<T>& b, double tol) {
  if (a.size() != b.size()) return false;
  if (tol == 0) return std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(double(a[i])));
    worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
  }
  return worst <= tol * scale;
}

std::vector<double> read_doubles(const io::Group& g, const std::string& name) {
  const auto ext = io::dataset_extent(g, name);
  io::detail::Selection sel;
  std::size_t n = 1;
  for (auto e : ext) {
    sel.global.push_back(static_cast<hsize_t>(e));
    sel.start.push_back(0);
    sel.count.push_back(static_cast<hsize_t>(e));
    sel.mem_start.push_back(0);
    n *= static_cast<std::size_t>(e);
  }
  sel.mem_dims = sel.count;
  std::vector<double> v(n);
  io::detail::read_selection(g, name, io::ElementType::float64, v.data(), v.size(), sel);
  return v;
}

std::vector<double> series(comm::Context& ctx, const std::filesystem::path& file, const std::string& name) {
  io::File f = io::File::open(ctx, file);
  return io::TimeSeries::open(f.root(), name).read();
}

}  // namespace

int main(int argc, char** argv) {
  comm::Context ctx(&argc, &argv);
  return comm::run_guarded(ctx, [&] {
    if (argc != 4 && argc != 5) {
      std::fprintf(stderr, "usage: %s REF_DIR TEST_DIR STEP [TOL]\n", argv[0]);
      return 2;
    }
    const double tol = argc == 5 ? std::stod(argv[4]) : 0.0;
    const char* equal = tol == 0 ? "bitwise equal" : "equal within the tolerance";
    const std::filesystem::path a = argv[1], b = argv[2];
    const std::string file = "fields_" + std::string(8 - std::min<std::size_t>(8, std::strlen(argv[3])), '0') + argv[3] + ".h5";
    for (const auto& dir : {a, b})
      if (!std::filesystem::exists(dir / file)) {
        std::printf("no output to compare: %s does not exist\n", (dir / file).c_str());
        return 1;
      }
    int bad = 0;
    for (const char* c : {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"}) {
      const auto x = read_all(ctx, a / file, c), y = read_all(ctx, b / file, c);
      const bool same = matches(x, y, tol);
      std::printf("%s %s: %s\n", file.c_str(), c, same ? equal : "DIFFERENT");
      bad += !same;
    }
    const auto p = series(ctx, a / "probes.h5", "probes"), q = series(ctx, b / "probes.h5", "probes");
    const bool probes_match = matches(p, q, tol);
    std::printf("probes: %zu and %zu values, %s\n", p.size(), q.size(), probes_match ? equal : "DIFFERENT");
    bad += !probes_match;
    const auto e = series(ctx, a / "probes.h5", "energy"), f = series(ctx, b / "probes.h5", "energy");
    bool close = e.size() == f.size();
    for (std::size_t i = 0; close && i < e.size(); ++i)
      close = std::abs(e[i] - f[i]) <= std::max(1e-9, tol) * std::abs(e[i]);
    std::printf("energy: %zu and %zu values, %s\n", e.size(), f.size(), close ? "equal to 1e-9" : "DIFFERENT");
    bad += !close;
    // Spectra: the reference's *_dft.h5 and flux.h5, each dataset of a listed name.
    for (const auto& entry : std::filesystem::directory_iterator(a)) {
      const std::string name = entry.path().filename().string();
      const bool dft = name.size() > 7 && name.compare(name.size() - 7, 7, "_dft.h5") == 0;
      if (!dft && name != "flux.h5") continue;
      io::File fa = io::File::open(ctx, a / name);
      if (!std::filesystem::exists(b / name)) {
        std::printf("%s: missing in %s: DIFFERENT\n", name.c_str(), b.c_str());
        ++bad;
        continue;
      }
      io::File fb = io::File::open(ctx, b / name);
      std::vector<std::string> paths;
      if (dft) {
        paths.push_back("frequencies");
        for (const char* c : {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"})
          for (const char* part : {"_re", "_im"})
            if (fa.root().exists(std::string(c) + part)) paths.push_back(std::string(c) + part);
      } else {
        for (const std::string& plane : io::read_attribute<std::vector<std::string>>(fa.root(), "planes")) {
            paths.push_back(plane);
            for (const char* c : {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"})
              if (fa.root().exists("dft/" + plane + "/" + c)) paths.push_back("dft/" + plane + "/" + c);
        }
      }
      for (const std::string& path : paths) {
        const auto x = read_doubles(fa.root(), path), y = read_doubles(fb.root(), path);
        bool nonzero = false;
        for (double v : x) nonzero = nonzero || v != 0;
        const bool same = matches(x, y, tol) && (nonzero || path == "frequencies");
        std::printf("%s %s: %zu values, %s\n", name.c_str(), path.c_str(), x.size(),
                    same ? equal : nonzero ? "DIFFERENT" : "all zero: DIFFERENT");
        bad += !same;
      }
    }
    return bad == 0 ? 0 : 1;
  });
}
