#include "app/registry.hpp"

#include <stdexcept>

#include "app/bench_comm.hpp"
#include "solvers/builtin.hpp"

namespace tessera::app {

void Registry::add_solver(SolverInfo info) {
  const std::string name = info.name;
  if (!solvers_.emplace(name, std::move(info)).second) throw std::logic_error("solver registered twice: " + name);
}

void Registry::add_bench(BenchInfo info) {
  const std::string name = info.name;
  if (!benches_.emplace(name, std::move(info)).second) throw std::logic_error("bench registered twice: " + name);
}

const SolverInfo* Registry::find_solver(std::string_view name) const {
  auto it = solvers_.find(name);
  return it == solvers_.end() ? nullptr : &it->second;
}

const BenchInfo* Registry::find_bench(std::string_view name) const {
  auto it = benches_.find(name);
  return it == benches_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::solver_names() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : solvers_) out.push_back(name);
  return out;
}

std::vector<std::string> Registry::bench_names() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : benches_) out.push_back(name);
  return out;
}

const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    // Each built solver adds itself and, when it has one, its benchmark of the same name.
    for (SolverInfo info : builtin_solvers()) {
      if (info.bench) r.add_bench({info.name, info.description, info.bench});
      r.add_solver(std::move(info));
    }
    r.add_bench({"comm", "ring shift and halo exchange bandwidth through each transport", bench_comm});
    return r;
  }();
  return registry;
}

}  // namespace tessera::app
