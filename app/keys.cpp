#include "app/keys.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "app/registry.hpp"
#include "app/run_schema.hpp"
#include "core/error.hpp"

namespace tessera::app {

int print_keys(comm::Context& ctx, const std::string& solver) {
  const Registry& registry = builtin_registry();
  const deck::SolverCatalog catalog = solver_catalog(registry);
  deck::Schema schema = run_schema(registry);
  if (!solver.empty()) {
    if (!registry.find_solver(solver)) throw InputError(fmt::format("unknown solver '{}'", solver));
    schema = catalog.compose(solver);
  } else {
    for (const auto& name : registry.solver_names()) schema.merge(registry.find_solver(name)->schema());
  }
  if (ctx.is_root()) std::fputs(schema.to_markdown().c_str(), stdout);
  return 0;
}

}  // namespace tessera::app
