#include "solvers/bfs/edge_source.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/partition.hpp"

namespace tessera::bfs {

void VectorEdgeSource::fill(std::int64_t first, std::span<Edge> out) const {
  if (first < 0 || first + static_cast<std::int64_t>(out.size()) > local_edges())
    throw std::out_of_range("VectorEdgeSource::fill beyond the local edges");
  std::copy_n(edges_.begin() + first, out.size(), out.begin());
}

KroneckerEdgeSource::KroneckerEdgeSource(const KroneckerSpec& spec, int rank, int ranks)
    : spec_(spec), gen_(make_kronecker(spec)) {
  const Range r = block_range(spec.edges(), ranks, rank);
  begin_ = r.begin;
  count_ = r.count;
}

void KroneckerEdgeSource::fill(std::int64_t first, std::span<Edge> out) const {
  if (first < 0 || first + static_cast<std::int64_t>(out.size()) > count_)
    throw std::out_of_range("KroneckerEdgeSource::fill beyond the local edges");
  const std::int64_t base = begin_ + first;
  const auto count = static_cast<std::int64_t>(out.size());
  constexpr std::int64_t kBlock = 4096;  // edges per task (a multiple of the generator's lanes)
#pragma omp parallel for schedule(static) if (count > kBlock)
  for (std::int64_t i = 0; i < count; i += kBlock)
    generate_edges(gen_, static_cast<std::uint64_t>(base + i), out.subspan(i, std::min(kBlock, count - i)));
}

}  // namespace tessera::bfs
