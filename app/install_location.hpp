#pragma once
// Where this tessera runs from: an installed tree (PREFIX/bin/tessera beside
// PREFIX/share/tessera with the decks, job scripts and docs) or a build tree. Found from the
// executable's own path at run time, so a relocated install (a copied prefix, a .deb, a Spack
// prefix) reports where it is now, not where it was built.
#include <filesystem>
#include <string>

namespace tessera::app {

// The program the user ran, by absolute path: bin/tessera (the launcher, which names itself in
// TESSERA_LAUNCHER when it starts bin/tessera-core), else /proc/self/exe. Empty if unknown.
std::filesystem::path launched_executable();

struct InstallLocation {
  std::filesystem::path executable;  // launched_executable()
  std::filesystem::path prefix;      // the install prefix (empty in a build tree)
  std::filesystem::path share;       // PREFIX/share/tessera (empty in a build tree)
  bool installed() const { return !share.empty(); }
};

InstallLocation install_location();

// One line for --version and `tessera info`: "installed in /usr (decks, job scripts and docs
// in /usr/share/tessera)" or "running from the build tree /path/build/bin".
std::string describe(const InstallLocation& where);

// The --help footer: where the installed documentation is.
std::string help_footer(const InstallLocation& where);

}  // namespace tessera::app
