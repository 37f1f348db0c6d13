#pragma once
// Where a deck value that names a file points. One rule for every such key (declared with
// KeyBuilder::file()), applied when the deck is validated, so solvers read ready paths:
//   - written in the deck file: relative to the deck's folder, so a deck and its data move
//     together and run from any working directory (or from an installed share/tessera/inputs);
//   - given with --set: relative to the working directory, as on any command line;
//   - starting with "$PWD/": relative to the working directory wherever it is written (for the
//     outputs of an earlier run, which land under the working directory);
//   - absolute, or empty: unchanged.
#include <string>
#include <string_view>

namespace tessera::deck {

// `deck_path` is the deck file as it was opened ("inputs/bfs/edge_list.toml"); a value from the
// deck becomes an absolute path, one from --set stays as written (the working directory is the
// same for every rank). Each rank resolves with its own working directory.
std::string resolve_file_value(std::string_view value, std::string_view deck_path, bool from_command_line);

}  // namespace tessera::deck
