#pragma once
// The environment tessera starts in: TESSERA_* variables it does not know are likely typos.

namespace tessera::app {
// Warns (rank 0) about each TESSERA_* variable in the environment that core/env_registry.cpp
// does not declare, with the nearest declared name when one is close.
void warn_undeclared_environment();
}  // namespace tessera::app
