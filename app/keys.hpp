#pragma once
#include <string>

#include "comm/context.hpp"

namespace tessera::app {
// `tessera keys [SOLVER]`: the deck reference (Markdown) generated from the schema, so the user
// guide cannot drift from what the code accepts.
int print_keys(comm::Context& ctx, const std::string& solver);
// `tessera keys --env`: every environment variable of the registry (Markdown), docs/environment.md.
int print_environment(comm::Context& ctx);
}  // namespace tessera::app
