#pragma once
// Where a rank's share of the input edges comes from: the generator (edges computed on
// demand) or a file reader (edges already parsed). The CSR build pulls them in chunks so a
// rank never holds more than a chunk of unsent edges.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "solvers/bfs/edge.hpp"
#include "solvers/bfs/kronecker.hpp"

namespace tessera::bfs {

class EdgeSource {
 public:
  virtual ~EdgeSource() = default;
  virtual std::int64_t vertices() const = 0;     // n of the whole graph (same on every rank)
  virtual std::int64_t local_edges() const = 0;  // this rank's share
  // Writes this rank's edges [first, first + out.size()) into out.
  virtual void fill(std::int64_t first, std::span<Edge> out) const = 0;
};

// Edges held in memory (a parsed file, a test graph).
class VectorEdgeSource : public EdgeSource {
 public:
  VectorEdgeSource(std::int64_t n, std::vector<Edge> edges) : n_(n), edges_(std::move(edges)) {}
  std::int64_t vertices() const override { return n_; }
  std::int64_t local_edges() const override { return static_cast<std::int64_t>(edges_.size()); }
  void fill(std::int64_t first, std::span<Edge> out) const override;

 private:
  std::int64_t n_;
  std::vector<Edge> edges_;
};

// This rank's block of the Kronecker edge list (block_range over the ranks).
class KroneckerEdgeSource : public EdgeSource {
 public:
  KroneckerEdgeSource(const KroneckerSpec& spec, int rank, int ranks);
  std::int64_t vertices() const override { return spec_.vertices(); }
  std::int64_t local_edges() const override { return count_; }
  void fill(std::int64_t first, std::span<Edge> out) const override;
  std::int64_t first_edge() const { return begin_; }

 private:
  KroneckerSpec spec_;
  KroneckerGenerator gen_;
  std::int64_t begin_ = 0, count_ = 0;
};

}  // namespace tessera::bfs
