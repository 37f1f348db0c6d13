#pragma once
// What a scan run does, read from the deck and checked once (types, lengths, the input file),
// so the rest of the solver works with resolved values only.
#include <cstdint>
#include <string>

#include "comm/context.hpp"
#include "core/backend.hpp"
#include "core/deck/config.hpp"
#include "solvers/scan/generate.hpp"
#include "solvers/scan/types.hpp"

namespace tessera::scan {

enum class VerifyMode { none, sample, full };

struct InputSetup {
  bool from_file = false;
  Generator generator;      // when generated
  std::string file, dataset;  // when read
  std::string describe() const;  // for logs, outputs and checkpoints
};

struct Params {
  ValueType input_type = ValueType::int32;
  ValueType output_type = ValueType::int32;  // input_type, or int64 when int32 accumulates into int64
  Mode mode = Mode::inclusive;
  Variant variant = Variant::cpu;  // resolved: never automatic
  VerifyMode verify = VerifyMode::sample;
  int verify_windows = 64;
  bool write_input = false;
  std::int64_t length = 0;  // global number of elements
  InputSetup input;
};

std::string_view to_string(VerifyMode m);

// Collective (a file input is opened to learn its type and length). Throws InputError naming
// the deck key on every rank for anything the user must fix.
Params params_from_deck(comm::Context& ctx, const deck::Config& deck, Backend backend);

}  // namespace tessera::scan
