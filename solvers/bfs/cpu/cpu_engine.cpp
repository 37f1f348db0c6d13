// The cpu backend of the search and validation building blocks (backend.hpp): OpenMP over
// host arrays; bitmaps are 64-bit words claimed with atomic fetch_or, queues grow with an
// atomic counter. Also the reference the cuda kernels are tested against.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "solvers/bfs/backend.hpp"
#include "solvers/bfs/validate_rules.hpp"

namespace tessera::bfs {
namespace {

// Below this many items a loop runs on one thread: waking a team costs more (and far more
// when ranks share cores, as in the CI's oversubscribed MPI tests).
constexpr std::int64_t kParallelItems = std::int64_t{1} << 15;

template <class T>
std::atomic_ref<T> atomic(T& x) {
  return std::atomic_ref<T>(x);
}

class CpuEngine final : public SearchBackend {
 public:
  CpuEngine(const LocalGraph& g, std::int64_t eager)
      : g_(g), part_(g.partition), n_(g.vertices()), begin_(g.begin), nl_(g.count), eager_(eager),
        local_words_((g.count + 63) / 64), parent_(static_cast<std::size_t>(n_), -1),
        level_(static_cast<std::size_t>(n_), -1), visited_(local_words_), frontier_(part_.words()),
        next_(local_words_), sent_(part_.words()), queue_(static_cast<std::size_t>(nl_)),
        next_queue_(static_cast<std::size_t>(nl_)),
        table_(static_cast<std::size_t>(level_row_size(part_.parts) * part_.parts), 0),
        row_(table_.data() + level_row_size(part_.parts) * g.rank) {
    for (int r = 0; r < part_.parts; ++r) region_.push_back(part_.range(r).begin);
    if (part_.parts > 1) {
      send_.resize(2 * static_cast<std::size_t>(n_ + eager_));
      recv_.resize(2 * static_cast<std::size_t>(nl_) * (part_.parts - 1));
      eager_recv_.resize(2 * static_cast<std::size_t>(eager_) * (part_.parts - 1));
    }
  }

  stream_t stream() const override { return nullptr; }
  void synchronize() override {}

  void reset() override {
    std::fill_n(parent_.begin() + begin_, nl_, -1);
    std::fill_n(level_.begin() + begin_, nl_, -1);
    std::fill(visited_.begin(), visited_.end(), 0);
    std::fill(sent_.begin(), sent_.end(), 0);
    queue_size_ = next_size_ = 0;
  }

  void start(std::int64_t root) override {
    if (!g_.owns(root)) return;
    const std::int64_t v = root - begin_;
    visited_[v >> 6] |= std::uint64_t{1} << (v & 63);
    parent_[root] = root;
    level_[root] = 0;
    queue_[0] = v;
    queue_size_ = 1;
  }

  void top_down(int level) override {
    clear_row();
    std::int64_t found = 0, edges = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : found, edges) if (queue_size_ >= kParallelItems / 16)
    for (std::int64_t i = 0; i < queue_size_; ++i) {
      const std::int64_t u = queue_[i], from = u + begin_;
      for (std::int64_t j = g_.offsets[u]; j < g_.offsets[u + 1]; ++j) {
        const std::int64_t w = g_.columns[j];
        if (g_.owns(w)) {
          if (claim(w - begin_, from, level + 1)) {
            ++found;
            edges += g_.degree(w - begin_);
          }
        } else if (w != parent_[from]) {  // the parent is reached already (as top_down.cuh)
          send(w, from);
        }
      }
    }
    row_[kRowFound] = found;
    row_[kRowEdges] = edges;
  }

  void apply_received(int level, std::int64_t count) override {
    const Claimed c = claim_pairs(recv_.data(), count, level);
    row_[kRowFound] += c.found;  // after apply_eager's claims of the same level
    row_[kRowEdges] += c.edges;
  }

  void apply_eager(int level) override {
    const int p = part_.parts, me = g_.rank;
    const std::int64_t row = level_row_size(p);
    Claimed all;
    for (int k = 0; k + 1 < p; ++k) {
      const int r = k < me ? k : k + 1;
      const std::int64_t count = std::min(table_[r * row + kRowPairs + me], eager_);
      const Claimed c = claim_pairs(eager_recv_.data() + 2 * k * eager_, count, level);
      all.found += c.found;
      all.edges += c.edges;
    }
    row_[kRowFound] = all.found;
    row_[kRowEdges] = all.edges;
  }

  void swap_queues(std::int64_t count) override {
    if (count != next_size_) throw std::logic_error("bfs: the next queue and the level table disagree");
    std::swap(queue_, next_queue_);
    queue_size_ = next_size_;
    next_size_ = 0;
  }

  void queue_to_bitmap() override {
    std::uint64_t* mine = frontier_.data() + begin_ / 64;
    std::fill_n(mine, local_words_, 0);
    for (std::int64_t i = 0; i < queue_size_; ++i) mine[queue_[i] >> 6] |= std::uint64_t{1} << (queue_[i] & 63);
  }

  void bottom_up(int level) override {
    clear_row();
    std::int64_t found = 0, edges = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : found, edges) if (nl_ >= kParallelItems)
    for (std::int64_t wi = 0; wi < local_words_; ++wi) {
      const std::uint64_t seen = visited_[wi];
      std::uint64_t hits = 0;
      for (int b = 0; b < 64; ++b) {
        const std::int64_t v = wi * 64 + b;
        if (v >= nl_) break;
        if ((seen >> b) & 1) continue;
        for (std::int64_t j = g_.offsets[v]; j < g_.offsets[v + 1]; ++j) {
          const std::int64_t w = g_.columns[j];
          if ((frontier_[w >> 6] >> (w & 63)) & 1) {
            parent_[begin_ + v] = w;
            level_[begin_ + v] = level + 1;
            hits |= std::uint64_t{1} << b;
            ++found;
            edges += g_.degree(v);
            break;
          }
        }
      }
      visited_[wi] = seen | hits;
      next_[wi] = hits;
    }
    std::copy(next_.begin(), next_.end(), frontier_.begin() + begin_ / 64);
    row_[kRowFound] = found;
    row_[kRowEdges] = edges;
  }

  void bitmap_to_queue(std::int64_t count) override {
    const std::uint64_t* mine = frontier_.data() + begin_ / 64;
    std::int64_t k = 0;
    for (std::int64_t wi = 0; wi < local_words_; ++wi)
      for (std::uint64_t bits = mine[wi]; bits; bits &= bits - 1) queue_[k++] = wi * 64 + std::countr_zero(bits);
    if (k != count) throw std::logic_error("bfs: frontier bitmap and discovered count disagree");
    queue_size_ = k;
    next_size_ = 0;
  }

  bool edge_parallel(int level) override {
    if (sources_.empty() && g_.local_entries() > 0) {
      sources_.resize(g_.columns.size());
#pragma omp parallel for schedule(dynamic, 1024) if (nl_ >= kParallelItems)
      for (std::int64_t u = 0; u < nl_; ++u) std::fill(sources_.begin() + g_.offsets[u], sources_.begin() + g_.offsets[u + 1], u);
    }
    clear_row();
    int any = 0;
    const std::int64_t entries = g_.local_entries();
#pragma omp parallel for schedule(static) reduction(max : any) if (entries >= kParallelItems)
    for (std::int64_t j = 0; j < entries; ++j) {
      const std::int64_t u = sources_[j];
      if (atomic(level_[begin_ + u]).load(std::memory_order_relaxed) != level) continue;
      const std::int64_t w = g_.columns[j];
      if (g_.owns(w)) {
        if (atomic(level_[w]).load(std::memory_order_relaxed) == -1) {
          atomic(level_[w]).store(level + 1, std::memory_order_relaxed);
          atomic(parent_[w]).store(u + begin_, std::memory_order_relaxed);
          any = 1;
        }
      } else {
        send(w, u + begin_);
      }
    }
    return any != 0;
  }

  bool apply_received_plain(int level, std::int64_t count) override {
    int any = 0;
#pragma omp parallel for schedule(static) reduction(max : any) if (count >= kParallelItems)
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t w = recv_[2 * i];
      if (atomic(level_[w]).load(std::memory_order_relaxed) == -1) {
        atomic(level_[w]).store(level + 1, std::memory_order_relaxed);
        atomic(parent_[w]).store(recv_[2 * i + 1], std::memory_order_relaxed);
        any = 1;
      }
    }
    return any != 0;
  }

  std::byte* level_table() override { return reinterpret_cast<std::byte*>(table_.data()); }
  // The steps are done when they return: a fetch is a copy.
  void fetch_level_table(int slot) override { fetched_[slot] = table_; }
  std::span<const std::int64_t> wait_level_table(int slot) override { return fetched_[slot]; }

  std::size_t pair_bytes() const override { return 2 * sizeof(std::int64_t); }
  std::byte* send_pairs() override { return reinterpret_cast<std::byte*>(send_.data()); }
  std::byte* receive_pairs() override { return reinterpret_cast<std::byte*>(recv_.data()); }
  std::int64_t receive_capacity() const override { return static_cast<std::int64_t>(recv_.size() / 2); }
  std::int64_t eager_capacity() const override { return part_.parts > 1 ? eager_ : 0; }
  std::byte* eager_receive() override { return reinterpret_cast<std::byte*>(eager_recv_.data()); }
  std::byte* frontier_bitmap() override { return reinterpret_cast<std::byte*>(frontier_.data()); }
  std::byte* parent_global() override { return reinterpret_cast<std::byte*>(parent_.data()); }
  std::byte* level_global() override { return reinterpret_cast<std::byte*>(level_.data()); }

  Reached reached() override {
    std::int64_t count = 0, sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : count, sum) if (nl_ >= kParallelItems)
    for (std::int64_t v = 0; v < nl_; ++v)
      if (parent_[begin_ + v] != -1) {
        ++count;
        sum += g_.input_degree[v];
      }
    return {count, sum};
  }

  void download_window(std::span<std::int64_t> parent, std::span<std::int32_t> level) override {
    std::copy_n(parent_.begin() + begin_, nl_, parent.begin());
    std::copy_n(level_.begin() + begin_, nl_, level.begin());
  }
  void upload_window(std::span<const std::int64_t> parent, std::span<const std::int32_t> level) override {
    std::copy_n(parent.begin(), nl_, parent_.begin() + begin_);
    std::copy_n(level.begin(), nl_, level_.begin() + begin_);
  }
  void download_global(std::span<std::int64_t> parent, std::span<std::int32_t> level) override {
    std::copy(parent_.begin(), parent_.end(), parent.begin());
    std::copy(level_.begin(), level_.end(), level.begin());
  }

  CheckCounts check(std::int64_t root) override {
    const std::vector<std::int64_t> anc = ancestors(root);
    CheckCounts c;
    std::int64_t cnt[kChecks] = {}, first[kChecks];
    std::fill_n(first, kChecks, std::numeric_limits<std::int64_t>::max());
    const TreeView t{parent_.data(), level_.data(), n_};
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : cnt[:kChecks]) reduction(min : first[:kChecks]) if (nl_ >= kParallelItems / 16)
    for (std::int64_t v = 0; v < nl_; ++v) {
      const std::int64_t g = begin_ + v;
      auto flag = [&](int k, std::int64_t amount = 1) {
        cnt[k] += amount;
        first[k] = std::min(first[k], g);
      };
      const std::int64_t* row = g_.columns.data() + g_.offsets[v];
      const std::int64_t deg = g_.degree(v);
      if (tree_violation(t, g, root, anc[g])) flag(kTree);
      if (level_violation(t, g, root)) flag(kLevels);
      const std::int64_t p = parent_[g];
      if (needs_parent_edge(t, g, root) && !std::binary_search(row, row + deg, p)) flag(kParentEdges);
      std::int64_t bad_levels = 0, bad_span = 0;
      for (std::int64_t j = 0; j < deg; ++j) {
        bad_levels += edge_level_violation(t, g, row[j]) ? 1 : 0;
        bad_span += spanning_violation(t, g, row[j]) ? 1 : 0;
      }
      if (bad_levels) flag(kEdgeLevels, bad_levels);
      if (bad_span) flag(kSpanning, bad_span);
    }
    for (int k = 0; k < kChecks; ++k) {
      c.count[k] = cnt[k];
      c.first[k] = first[k];
    }
    return c;
  }

 private:
  struct Claimed {
    std::int64_t found = 0, edges = 0;  // vertices claimed, the sum of their degrees
  };

  // Claims `count` received (vertex, parent) pairs (global ids, two int64 each) for level + 1.
  Claimed claim_pairs(const std::int64_t* pairs, std::int64_t count, int level) {
    std::int64_t found = 0, edges = 0;
#pragma omp parallel for schedule(static) reduction(+ : found, edges) if (count >= kParallelItems)
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t w = pairs[2 * i] - begin_;
      if (claim(w, pairs[2 * i + 1], level + 1)) {
        ++found;
        edges += g_.degree(w);
      }
    }
    return {found, edges};
  }

  // Claims owned vertex `w` (local id) for parent `from` at `level`; true for the one winner.
  bool claim(std::int64_t w, std::int64_t from, int level) {
    std::uint64_t& word = visited_[w >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (w & 63);
    if (atomic(word).load(std::memory_order_relaxed) & bit) return false;
    if (atomic(word).fetch_or(bit, std::memory_order_relaxed) & bit) return false;
    parent_[begin_ + w] = from;
    level_[begin_ + w] = level;
    next_queue_[atomic(next_size_).fetch_add(1, std::memory_order_relaxed)] = w;
    return true;
  }

  // Queues (w, from) for w's owner, once per search for each remote w.
  void send(std::int64_t w, std::int64_t from) {
    std::uint64_t& word = sent_[w >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (w & 63);
    if (atomic(word).load(std::memory_order_relaxed) & bit) return;
    if (atomic(word).fetch_or(bit, std::memory_order_relaxed) & bit) return;
    const int r = part_.owner(w);
    const std::int64_t k = region_[r] + atomic(row_[kRowPairs + r]).fetch_add(1, std::memory_order_relaxed);
    send_[2 * k] = w;
    send_[2 * k + 1] = from;
  }

  void clear_row() { std::fill_n(row_, level_row_size(part_.parts), 0); }

  // Pointer jumping over the whole parent array (each rank redundantly: no communication).
  std::vector<std::int64_t> ancestors(std::int64_t root) const {
    std::vector<std::int64_t> anc(static_cast<std::size_t>(n_)), next(static_cast<std::size_t>(n_));
#pragma omp parallel for schedule(static) if (n_ >= kParallelItems)
    for (std::int64_t v = 0; v < n_; ++v) anc[v] = first_ancestor(parent_.data(), n_, v, root);
    for (int round = 0; round < jump_rounds(n_); ++round) {
      std::int64_t changed = 0;
#pragma omp parallel for schedule(static) reduction(+ : changed) if (n_ >= kParallelItems)
      for (std::int64_t v = 0; v < n_; ++v) {
        const std::int64_t a = anc[v];
        next[v] = a >= 0 ? anc[a] : a;
        changed += next[v] != a ? 1 : 0;
      }
      anc.swap(next);
      if (changed == 0) break;
    }
    return anc;
  }

  const LocalGraph& g_;
  VertexPartition part_;
  std::int64_t n_, begin_, nl_, eager_, local_words_;
  std::vector<std::int64_t> parent_;
  std::vector<std::int32_t> level_;
  std::vector<std::uint64_t> visited_, frontier_, next_, sent_;
  std::vector<std::int64_t> queue_, next_queue_;
  std::int64_t queue_size_ = 0, next_size_ = 0;
  std::vector<std::int64_t> table_;
  std::int64_t* row_;  // this rank's row of table_
  std::vector<std::int64_t> fetched_[2];
  std::vector<std::int64_t> region_;
  std::vector<std::int64_t> send_, recv_, eager_recv_;
  std::vector<std::int64_t> sources_;
};

}  // namespace

std::unique_ptr<SearchBackend> make_cpu_engine(const LocalGraph& graph, std::int64_t eager) {
  return std::make_unique<CpuEngine>(graph, eager);
}

}  // namespace tessera::bfs
