#pragma once
// The vectors a deck asks for: x of a multiply, b of a CG solve, the manufactured solution.
// Generated entries are pure functions of (seed, global index): the same for any rank count.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "comm/context.hpp"
#include "core/partition.hpp"

namespace tessera::spmv {

enum class VectorSource { ones, random, random_integers, file };

struct VectorSpec {
  VectorSource source = VectorSource::ones;
  std::uint64_t seed = 1;
  double low = -1, high = 1;  // random: uniform in [low, high); random-integers: whole numbers in [low, high]
  std::string file, dataset;  // file: a 1-D float64 or float32 dataset
  std::string where_file;     // the deck location of the file key, for messages
  std::string describe() const;
};

// Entry i of a generated vector.
double generated_entry(const VectorSpec& s, std::int64_t i);

// Collective (a file is read by every rank): entries [r.begin, r.end()) of the global vector
// of n entries. `what` names it in messages ("x", "b"). InputError (agreed) when the file's
// dataset is missing, of another length or type, or holds a value that is not finite.
template <class T>
std::vector<T> make_vector(comm::Context& ctx, const VectorSpec& s, Range r, std::int64_t n, std::string_view what);

}  // namespace tessera::spmv
