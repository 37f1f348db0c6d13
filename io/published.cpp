#include "io/published.hpp"

#include "core/log.hpp"

namespace tessera::io {

std::filesystem::path shown_path(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) return path;
  const std::filesystem::path absolute = path.is_absolute() ? path : cwd / path;
  const std::filesystem::path rel = absolute.lexically_normal().lexically_relative(cwd);
  // Outside the working directory ("../.."), the absolute path reads better.
  if (rel.empty() || *rel.begin() == "..") return absolute.lexically_normal();
  return rel;
}

void log_published(const std::filesystem::path& path, std::string_view label) {
  if (log::rank() != 0) return;  // only rank 0 prints; spare the others the path work
  log::info("{} {}", label, shown_path(path).string());
}

}  // namespace tessera::io
