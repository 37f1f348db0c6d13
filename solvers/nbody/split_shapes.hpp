#pragma once
// The compiled shapes of the split kernel (cuda/forces_split.cu), one list for the kernels and
// for the host code that validates and chooses shapes (kernel_config.cpp), so they cannot
// drift. X(type, bodies per thread, threads per block, unroll, min blocks per SM):
//  - unroll: sources per step of the inner loop (a multiple of it fills a 256-source tile);
//  - min blocks: __launch_bounds__' second argument, so registers per thread are capped at
//    65536 / (threads x min blocks) (32 for 128 x 16, 40 for 128 x 12, 64 for 128 x 8).
// The first shape of a type that fits a request is the one chosen (kernel_config.cpp), so the
// first single-precision row is the default kernel's shape from kSplitFromTargets targets
// (forces.hpp): g256 b4 u8 m4, measured fastest or within 0.1% of it on an H100 at 256K and 1M
// (2.067 and 2.064 T interactions/s with masses that differ, 2.226 and 2.225 with equal ones;
// docs/nbody.md has the tables).
// None of the single-precision force-only kernels spills; the inner loops take 13.28 (b8) to
// 14.5 (b1 u8) issue slots per interaction (tools/nbody_sass_loops.py; docs/nbody.md has the table), one
// fewer in each shape's equal-mass form.
#include <vector>

#define TESSERA_NBODY_SPLIT_SHAPES(X) \
  X(float, 4, 256, 8, 4) \
  X(float, 2, 128, 16, 16) \
  X(float, 2, 128, 32, 16) \
  X(float, 2, 128, 64, 16) \
  X(float, 2, 128, 16, 12) \
  X(float, 2, 128, 16, 8) \
  X(float, 2, 256, 16, 4) \
  X(float, 2, 128, 8, 12) \
  X(float, 3, 128, 16, 12) \
  X(float, 3, 128, 8, 10) \
  X(float, 4, 128, 16, 10) \
  X(float, 4, 128, 8, 8) \
  X(float, 4, 128, 8, 6) \
  X(float, 8, 128, 4, 5) \
  X(float, 1, 128, 8, 16) \
  X(float, 1, 128, 16, 16) \
  X(float, 1, 128, 32, 16) \
  X(float, 1, 128, 128, 16) \
  X(double, 1, 128, 8, 8) \
  X(double, 2, 128, 8, 4) \
  X(double, 4, 128, 4, 3)

namespace tessera::nbody {

struct SplitShape {
  bool double_precision;
  int bodies_per_thread, threads, unroll, min_blocks;
};

inline const std::vector<SplitShape>& split_shapes() {
#define TESSERA_NBODY_SPLIT_SHAPE_ROW(type, b, threads, unroll, min_blocks) \
  SplitShape{sizeof(type) == 8, b, threads, unroll, min_blocks},
  static const std::vector<SplitShape> shapes{TESSERA_NBODY_SPLIT_SHAPES(TESSERA_NBODY_SPLIT_SHAPE_ROW)};
#undef TESSERA_NBODY_SPLIT_SHAPE_ROW
  return shapes;
}

// Sources per shared-memory tile: each thread copies 256 / threads of them (at least one).
constexpr int split_tile(int threads) { return threads >= 256 ? threads : 256; }

}  // namespace tessera::nbody
