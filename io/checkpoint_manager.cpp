#include <fmt/format.h>

#include <algorithm>

#include "comm/collectives.hpp"
#include "io/agree.hpp"
#include "io/checkpoint.hpp"

namespace tessera::io {
namespace {

bool is_leftover_tmp(const std::filesystem::path& p) {
  const std::string name = p.filename().string();
  if (!name.ends_with(".tmp")) return false;
  return checkpoint_step(name.substr(0, name.size() - 4)).has_value();
}

// Rank 0's view of the directory: the final checkpoints' steps, ascending.
std::vector<std::int64_t> scan(const std::filesystem::path& dir) {
  std::vector<std::int64_t> steps;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return steps;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    if (const auto step = checkpoint_step(entry.path())) steps.push_back(*step);
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

}  // namespace

CheckpointManager::CheckpointManager(comm::Context& ctx, std::filesystem::path dir, int keep)
    : ctx_(&ctx), dir_(std::move(dir)), keep_(keep) {
  if (keep < 0) throw std::invalid_argument(fmt::format("checkpoint keep count {} is negative", keep));
  agree_input(ctx, [&] {
    if (!ctx.is_root()) return;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir_, ec)) return;
    for (const auto& entry : std::filesystem::directory_iterator(dir_))
      if (entry.is_regular_file() && is_leftover_tmp(entry.path())) std::filesystem::remove(entry.path());
  });
}

std::vector<std::int64_t> CheckpointManager::list() const {
  std::vector<std::int64_t> steps;
  agree_input(*ctx_, [&] {
    if (ctx_->is_root()) steps = scan(dir_);
  });
  auto n = comm::broadcast_value<std::int64_t>(*ctx_, static_cast<std::int64_t>(steps.size()));
  steps.resize(static_cast<std::size_t>(n));
  if (n > 0) comm::broadcast(*ctx_, std::span<std::int64_t>(steps));
  return steps;
}

std::optional<std::int64_t> CheckpointManager::newest() const {
  const auto steps = list();
  if (steps.empty()) return std::nullopt;
  return steps.back();
}

std::vector<std::int64_t> CheckpointManager::prune() const {
  std::vector<std::int64_t> steps = list();
  if (keep_ == 0 || static_cast<int>(steps.size()) <= keep_) return {};
  steps.resize(steps.size() - static_cast<std::size_t>(keep_));  // the oldest ones
  agree_input(*ctx_, [&] {
    if (!ctx_->is_root()) return;
    for (std::int64_t s : steps) {
      std::error_code ec;
      std::filesystem::remove(path_for(s), ec);
      if (ec) throw std::runtime_error(fmt::format("cannot remove old checkpoint {}: {}", path_for(s).string(),
                                                   ec.message()));
    }
  });
  return steps;
}

}  // namespace tessera::io
