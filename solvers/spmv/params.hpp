#pragma once
// What an spmv run does, read from the deck and checked once (every cross-key rule here), so
// the rest of the solver works with resolved values only. Files are not opened here: the
// solver reads them (collectively) when it is created, before the output directory is touched.
#include <cstdint>
#include <string>

#include "core/backend.hpp"
#include "core/deck/config.hpp"
#include "solvers/spmv/cg.hpp"
#include "solvers/spmv/generate.hpp"
#include "solvers/spmv/types.hpp"
#include "solvers/spmv/vectors.hpp"

namespace tessera::spmv {

enum class Mode { multiply, cg };
enum class Rhs { ones, random, file, manufactured };
std::string_view to_string(Mode m);
std::string_view to_string(Rhs r);

struct Params {
  Mode mode = Mode::multiply;
  Precision precision = Precision::float64;
  Variant variant = Variant::automatic;  // as the deck says; auto is resolved by choose_variant
  HybridRule hybrid_rule = HybridRule::third;
  bool verify = true;
  bool write_matrix = false;
  MatrixSpec matrix;
  VectorSpec x;  // multiply
  // cg
  CgOptions cg;
  Rhs rhs = Rhs::ones;
  VectorSpec b;          // rhs ones, random or file
  VectorSpec solution;   // rhs manufactured: x*
  std::string where_mode;  // deck location of spmv.mode, for messages
  std::string describe_rhs() const;
};

// Throws InputError naming the deck key for anything the user must fix (including the cuda
// backend, which spmv does not have yet).
Params params_from_deck(const deck::Config& deck, Backend backend);

}  // namespace tessera::spmv
