#pragma once
// Every mistake found in a deck, thrown together so the user can fix them in one go. It is a
// tessera::InputError (exit code 2); what() lists the problems one per line.
#include <string>
#include <vector>

#include "core/error.hpp"

namespace tessera::deck {

class DeckError : public InputError {
 public:
  // `problems` are complete lines ("demo.toml:5:6: nbody.dt must be a float, ...").
  DeckError(const std::string& source_name, std::vector<std::string> problems);

  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

}  // namespace tessera::deck
