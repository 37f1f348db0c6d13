#pragma once
// The solvers and benchmarks this tessera knows, by name. app/registry.cpp registers the
// built-in ones explicitly (no static-initialisation tricks the linker could drop).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "app/bench.hpp"
#include "solvers/solver.hpp"

namespace tessera::app {

struct BenchInfo {
  std::string name;
  std::string description;
  std::function<BenchReport(comm::Context&, const BenchOptions&)> run;
};

class Registry {
 public:
  void add_solver(SolverInfo info);
  void add_bench(BenchInfo info);
  const SolverInfo* find_solver(std::string_view name) const;
  const BenchInfo* find_bench(std::string_view name) const;
  std::vector<std::string> solver_names() const;
  std::vector<std::string> bench_names() const;

 private:
  std::map<std::string, SolverInfo, std::less<>> solvers_;
  std::map<std::string, BenchInfo, std::less<>> benches_;
};

// The registry with every built-in solver and benchmark.
const Registry& builtin_registry();

}  // namespace tessera::app
