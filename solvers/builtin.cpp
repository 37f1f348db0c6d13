#include "solvers/builtin.hpp"

// Each solver library defines TESSERA_SOLVER_<NAME> for its users (solvers/CMakeLists.txt).
#if defined(TESSERA_SOLVER_NBODY)
#include "solvers/nbody/solver_info.hpp"
#endif
#if defined(TESSERA_SOLVER_FDTD)
#include "solvers/fdtd/solver_info.hpp"
#endif
#if defined(TESSERA_SOLVER_SCAN)
#include "solvers/scan/solver_info.hpp"
#endif
#if defined(TESSERA_SOLVER_BFS)
#include "solvers/bfs/solver_info.hpp"
#endif
#if defined(TESSERA_SOLVER_SPMV)
#include "solvers/spmv/solver_info.hpp"
#endif

namespace tessera {

std::vector<SolverInfo> builtin_solvers() {
  std::vector<SolverInfo> out;
#if defined(TESSERA_SOLVER_NBODY)
  out.push_back(nbody::solver_info());
#endif
#if defined(TESSERA_SOLVER_FDTD)
  out.push_back(fdtd::solver_info());
#endif
#if defined(TESSERA_SOLVER_SCAN)
  out.push_back(scan::solver_info());
#endif
#if defined(TESSERA_SOLVER_BFS)
  out.push_back(bfs::solver_info());
#endif
#if defined(TESSERA_SOLVER_SPMV)
  out.push_back(spmv::solver_info());
#endif
  return out;
}

}  // namespace tessera
