#pragma once
// A small deterministic solver for testing the run loop: N 64-bit words spread over the ranks;
// each step mixes every word with the global sum (mod 2^64), so the state depends on every
// rank and on every step, is bitwise identical for any rank count, and any lost or repeated
// step or wrong restart shows in the final state.
#include <csignal>
#include <memory>
#include <vector>

#include "comm/collectives.hpp"
#include "core/partition.hpp"
#include "io/checkpoint.hpp"
#include "solvers/solver.hpp"

namespace tessera::test {

inline std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// What the test inspects after a run.
struct HashwalkProbe {
  std::vector<std::uint64_t> state;  // this rank's block after the last step
  int outputs = 0, diagnostics = 0, restarts = 0;
};

class Hashwalk : public Solver {
 public:
  Hashwalk(RunContext& run, std::shared_ptr<HashwalkProbe> probe)
      : ctx_(run.ctx), probe_(std::move(probe)), n_(run.deck.get_int("hashwalk.n")),
        seed_(static_cast<std::uint64_t>(run.deck.get_int("hashwalk.seed"))),
        signal_at_(run.deck.get_int("hashwalk.signal_at")),
        range_(block_range(n_, ctx_.size(), ctx_.rank())) {}

  void initialize() override {
    state_.resize(static_cast<std::size_t>(range_.count));
    for (std::int64_t i = 0; i < range_.count; ++i) state_[i] = splitmix(seed_ ^ std::uint64_t(range_.begin + i));
    publish();
  }
  void restart(io::CheckpointReader& in) override {
    step_ = in.manifest().step;
    state_ = in.read_1d_checked<std::uint64_t>("state", range_.begin, range_.count);
    ++probe_->restarts;
    publish();
  }
  void advance() override {
    std::uint64_t local = 0;
    for (auto w : state_) local += w;
    const std::uint64_t total = comm::allreduce(ctx_, local, comm::Op::sum);
    for (auto& w : state_) w = splitmix(w + total + std::uint64_t(step_));
    ++step_;
    // A batch system's warning signal, seen by rank 0 only.
    if (step_ == signal_at_ && ctx_.rank() == 0) std::raise(SIGUSR1);
    publish();
  }
  std::int64_t step() const override { return step_; }
  double time() const override { return 0.5 * double(step_); }
  void write_output() override { ++probe_->outputs; }
  void diagnostics() override { ++probe_->diagnostics; }
  void write_checkpoint(io::CheckpointWriter& out) override {
    out.write_1d_checked<std::uint64_t>("state", state_, range_.begin, n_);
  }
  double work_per_step() const override { return double(n_); }
  std::string work_unit() const override { return "words"; }

 private:
  void publish() { probe_->state = state_; }

  comm::Context& ctx_;
  std::shared_ptr<HashwalkProbe> probe_;
  std::int64_t n_;
  std::uint64_t seed_;
  std::int64_t signal_at_;
  Range range_;
  std::int64_t step_ = 0;
  std::vector<std::uint64_t> state_;
};

inline SolverInfo hashwalk_info(std::shared_ptr<HashwalkProbe> probe) {
  SolverInfo info;
  info.name = "hashwalk";
  info.restart_may_change = {"hashwalk.signal_at"};  // the test's stop request, not physics
  info.description = "test solver: mixes 64-bit words with their global sum";
  info.format_version = 1;
  info.schema = [] {
    deck::Schema s;
    s.table("hashwalk", "test solver")
        .integer("n", "number of words").min(1).default_value(1000)
        .integer("seed", "initial state seed").default_value(7)
        .integer("signal_at", "raise SIGUSR1 on rank 0 after this step (-1: never)").default_value(-1);
    return s;
  };
  info.create = [probe](RunContext& run) { return std::make_unique<Hashwalk>(run, probe); };
  return info;
}

}  // namespace tessera::test
