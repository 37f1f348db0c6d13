#include "app/install_location.hpp"

#include <fmt/format.h>

#include <optional>

#include "core/env.hpp"
#include "tessera/build_info.hpp"

namespace tessera::app {

std::filesystem::path launched_executable() {
  namespace fs = std::filesystem;
  if (const std::optional<std::string> launcher = env::get_string("TESSERA_LAUNCHER");
      launcher && fs::path(*launcher).is_absolute())
    return *launcher;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe;
}

InstallLocation install_location() {
  namespace fs = std::filesystem;
  InstallLocation where;
  std::error_code ec;
  where.executable = launched_executable();
  if (where.executable.empty()) return where;
  // PREFIX/<bindir>/tessera: the install rules put the shared files in PREFIX/<datadir>/tessera.
  const fs::path prefix = where.executable.parent_path().parent_path();
  const fs::path share = prefix / TESSERA_INSTALL_DATADIR / "tessera";
  if (fs::is_directory(share / "inputs", ec)) {
    where.prefix = prefix;
    where.share = share;
  }
  return where;
}

std::string describe(const InstallLocation& where) {
  if (where.installed())
    return fmt::format("installed in {} (decks, job scripts and docs in {})", where.prefix.string(), where.share.string());
  if (where.executable.empty()) return "install location unknown (/proc/self/exe unreadable)";
  return fmt::format("running from the build tree {} (not installed)", where.executable.parent_path().string());
}

std::string help_footer(const InstallLocation& where) {
  const std::string decks = where.installed() ? (where.share / "inputs").string() : std::string("inputs");
  std::string text = fmt::format(
      "Examples:\n"
      "  mpirun -np 2 tessera run {0}/demo.toml\n"
      "      the demo: an N-body run of seconds on 2 CPU ranks (on GPUs where every rank sees one)\n"
      "  mpirun -np 4 tessera run DECK.toml --set run.steps=500 --restart latest\n"
      "      continue a run from its newest checkpoint, on any number of ranks\n"
      "  tessera info\n"
      "      what this build and this machine offer (GPUs, transports, threads per rank)\n\n",
      decks);
  if (!where.installed())
    return text + "Documentation: docs/ of the tessera sources (user-guide.md, deck-reference.md).";
  return text + fmt::format("Documentation: {0}/docs (user-guide.md, deck-reference.md, install.md); example decks: "
                            "{0}/inputs; job scripts: {0}/jobscripts.",
                            where.share.string());
}

}  // namespace tessera::app
