#include "solvers/fdtd/geometry/mesh_transform.hpp"

#include <cmath>

#include "solvers/fdtd/constants.hpp"

namespace tessera::fdtd {
namespace {

using Matrix = std::array<std::array<double, 3>, 3>;

Matrix product(const Matrix& a, const Matrix& b) {
  Matrix r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[i][j] += a[i][k] * b[k][j];
  return r;
}

// The rotation by `degrees` about axis a (right-handed). Multiples of 90 degrees are exact, so
// a quarter turn does not smear a grid-aligned mesh by rounding.
Matrix rotation(int a, double degrees) {
  double c = std::cos(degrees * kPi / 180), s = std::sin(degrees * kPi / 180);
  if (const double q = degrees / 90; q == std::floor(q)) {
    const int n = ((static_cast<int>(std::fmod(q, 4.0)) % 4) + 4) % 4;
    c = n == 0 ? 1 : n == 2 ? -1 : 0;
    s = n == 1 ? 1 : n == 3 ? -1 : 0;
  }
  const int b = (a + 1) % 3, d = (a + 2) % 3;
  Matrix r{};
  r[a][a] = 1;
  r[b][b] = c;
  r[b][d] = -s;
  r[d][b] = s;
  r[d][d] = c;
  return r;
}

}  // namespace

void transform_mesh(std::vector<Triangle>& tris, double scale, const std::array<double, 3>& rotate_degrees,
                    const std::array<double, 3>& translate) {
  const Matrix r = product(rotation(2, rotate_degrees[2]), product(rotation(1, rotate_degrees[1]), rotation(0, rotate_degrees[0])));
  for (Triangle& t : tris)
    for (Vertex& v : t) {
      const Vertex s{scale * v[0], scale * v[1], scale * v[2]};
      for (int i = 0; i < 3; ++i) v[i] = r[i][0] * s[0] + r[i][1] * s[1] + r[i][2] * s[2] + translate[i];
    }
}

}  // namespace tessera::fdtd
