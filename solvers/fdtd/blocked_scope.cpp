// What the blocked sweep takes (backend.hpp): the same refusals, word for word, from every engine.
#include <string>

#include "solvers/fdtd/backend.hpp"

namespace tessera::fdtd {

std::string blocked_refusal(const LocalDomain& domain, int steps, int deep_planes, bool cpml, bool acts_within_step) {
  if (steps < 2 || steps > kMaxBlockedSteps)
    return "the blocked sweep takes 2 to " + std::to_string(kMaxBlockedSteps) + " steps per pass, not " +
           std::to_string(steps);
  for (int a = 0; a < 2; ++a)
    if (domain.remote(a, 0) || domain.remote(a, 1))
      return std::string("this rank has a neighbour along ") + char('x' + a) +
             " (across ranks the blocked sweep takes grids cut along z only: fdtd.ranks = [1, 1, P])";
  if ((domain.remote(2, 0) || domain.remote(2, 1)) && (steps > deep_planes + 1 || domain.n[2] < steps))
    return "this rank holds " + std::to_string(domain.n[2]) + " z layers, fewer than the " + std::to_string(steps) +
           " steps of a pass (a neighbour's pass reads that many of them)";
  if (cpml && (domain.remote(2, 0) || domain.remote(2, 1)))
    return "CPML slabs with z neighbours (the pass keeps the slabs' psi on one rank only)";
  if (acts_within_step) return "dispersive materials or a TFSF box act within each step";
  return "";
}

}  // namespace tessera::fdtd
