#pragma once
// `tessera info`: what this build is and what this job sees, truthfully, from every rank.
#include "comm/context.hpp"

namespace tessera::app {

// Collective. Rank 0 prints the report; every rank contributes its host and GPU line.
int run_info(comm::Context& ctx);

}  // namespace tessera::app
