#pragma once
// Helpers for the N-body tests: a temporary directory shared by the ranks, decks run through
// the real run loop (app::run_deck with the built-in registry), random bodies, and the O(N^2)
// serial reference in long double.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/run_command.hpp"
#include "comm/collectives.hpp"
#include "core/partition.hpp"
#include "solvers/nbody/pair_force.hpp"
#include "solvers/nbody/rng.hpp"
#include "solvers/nbody/snapshot.hpp"
#include "solvers/nbody/vec.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::nbody::test {

using tessera::test::context;

// Collective: rank 0 creates a unique directory and broadcasts it; removed at the end.
class TempDir {
 public:
  TempDir() {
    std::string name;
    if (context().is_root()) {
      std::string tmpl = (std::filesystem::temp_directory_path() / "tessera_nbody_XXXXXX").string();
      if (::mkdtemp(tmpl.data()) == nullptr) tmpl.clear();
      name = tmpl;
    }
    comm::broadcast(context(), name);
    if (name.empty()) throw std::runtime_error("cannot create a temporary directory");
    path_ = name;
  }
  ~TempDir() {
    try {
      comm::barrier(context());
      if (context().is_root() && !std::getenv("TESSERA_KEEP_TEST_FILES")) std::filesystem::remove_all(path_);
    } catch (...) {
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// A deck: [run] with the given steps and output directory, then `rest` (the [nbody] tables,
// cadences). Backend cpu unless `backend` says otherwise.
inline std::string deck_text(const std::filesystem::path& out_dir, int steps, const std::string& rest,
                             const std::string& backend = "cpu") {
  return "[run]\nsolver = \"nbody\"\nsteps = " + std::to_string(steps) + "\nbackend = \"" + backend +
         "\"\noutput_dir = \"" + out_dir.string() + "\"\nstatus_interval = 1000.0\n\n" + rest;
}

// Collective: rank 0 writes the deck file, every rank loads it through the run loop's loader.
inline deck::Deck load_deck(const std::filesystem::path& file, const std::string& text,
                            const std::vector<std::string>& overrides = {}) {
  if (context().is_root()) {
    std::ofstream out(file);
    out << text;
  }
  comm::barrier(context());
  return app::load_run_deck(context(), app::builtin_registry(), file.string(), overrides);
}

inline app::RunSummary run_deck(const deck::Deck& d, const std::string& restart = "") {
  app::RunOptions o;
  o.restart = restart;
  o.overwrite = restart.empty();  // the tests rerun fresh runs into one directory
  return app::run_deck(context(), app::builtin_registry(), d, o);
}

// Collective: this rank's block of a snapshot's bodies (tests compare blocks rank by rank).
template <class T>
SnapshotData<T> read_snap(const std::filesystem::path& file) {
  return read_snapshot<T>(context(), file, 1, "test");
}

// Random bodies: positions in [-1, 1]^3, masses in [0.5, 1.5] / n (or all 1 / n), a pure
// function of (seed, index), so any rank can build any of them.
template <class T>
std::vector<Vec4<T>> random_bodies(std::int64_t n, std::uint64_t seed, bool equal_masses = false) {
  std::vector<Vec4<T>> b(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    BodyRandom r(seed, static_cast<std::uint64_t>(i));
    const double x = r.uniform(-1, 1), y = r.uniform(-1, 1), z = r.uniform(-1, 1);
    const double m = r.uniform(0.5, 1.5);
    b[i] = Vec4<T>{T(x), T(y), T(z), T((equal_masses ? 1.0 : m) / double(n))};
  }
  return b;
}

// The O(N^2) reference in long double: (ax, ay, az, phi) of `targets` due to all of `all`,
// with the same eps^2 the kernels use and the potential excluding the body itself.
template <class T>
std::vector<std::array<long double, 4>> reference_forces(const std::vector<Vec4<T>>& all, Range targets, double G,
                                                         T eps2) {
  std::vector<std::array<long double, 4>> out(static_cast<std::size_t>(targets.count));
  for (std::int64_t t = 0; t < targets.count; ++t) {
    const std::int64_t i = targets.begin + t;
    long double a[4] = {0, 0, 0, 0};
    for (std::size_t j = 0; j < all.size(); ++j) {
      if (static_cast<std::int64_t>(j) == i) continue;
      const long double dx = (long double)all[j].x - all[i].x, dy = (long double)all[j].y - all[i].y,
                        dz = (long double)all[j].z - all[i].z;
      const long double r2 = dx * dx + dy * dy + dz * dz + (long double)eps2;
      const long double inv = 1.0L / std::sqrt(r2);
      const long double s = (long double)all[j].w * inv * inv * inv;
      a[0] += dx * s, a[1] += dy * s, a[2] += dz * s, a[3] -= (long double)all[j].w * inv;
    }
    for (int k = 0; k < 4; ++k) out[t][k] = G * a[k];
  }
  return out;
}

// Largest |a - ref| / |ref| over the targets (acceleration vectors), and the same for phi.
struct Deviation {
  double acc = 0, phi = 0;
};
template <class T>
Deviation deviation(const std::vector<Vec4<T>>& got, const std::vector<std::array<long double, 4>>& ref) {
  Deviation d;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const long double ex = got[i].x - ref[i][0], ey = got[i].y - ref[i][1], ez = got[i].z - ref[i][2];
    const long double norm = std::sqrt(ref[i][0] * ref[i][0] + ref[i][1] * ref[i][1] + ref[i][2] * ref[i][2]);
    if (norm > 0) d.acc = std::max(d.acc, double(std::sqrt(ex * ex + ey * ey + ez * ez) / norm));
    if (ref[i][3] != 0) d.phi = std::max(d.phi, double(std::abs((got[i].w - ref[i][3]) / ref[i][3])));
  }
  return d;
}

}  // namespace tessera::nbody::test
