#include "solvers/fdtd/rank_grid.hpp"

#include <algorithm>

namespace tessera::fdtd {

std::array<int, 3> default_rank_grid(const Model& model, int ranks, Backend backend) {
  if (model.ranks != std::array<int, 3>{0, 0, 0} || ranks < 2) return model.ranks;
  if (model.cells[2] / ranks < model.pass_steps()) return {0, 0, 0};
  const bool forced = model.sweep == Sweep::blocked;
  const bool gpu_sweep = backend == Backend::cuda && ranks <= 4 && model.sweep != Sweep::split &&
                         model.cells[2] >= std::max(model.cells[0], model.cells[1]);
  if (forced || gpu_sweep) return {1, 1, ranks};
  return {0, 0, 0};
}

}  // namespace tessera::fdtd
