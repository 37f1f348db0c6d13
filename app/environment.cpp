#include "app/environment.hpp"

#include <unistd.h>

#include "core/deck/suggest.hpp"
#include "core/env.hpp"
#include "core/log.hpp"

namespace tessera::app {

void warn_undeclared_environment() {
  const std::vector<std::string> known = env::names();
  for (const std::string& name : env::undeclared(environ)) {
    if (const auto near = deck::nearest(name, known))
      log::warn("environment variable {} is not one tessera knows (ignored); did you mean {}?", name, *near);
    else
      log::warn("environment variable {} is not one tessera knows (ignored); `tessera keys --env` lists them", name);
  }
}

}  // namespace tessera::app
