#pragma once
// Everything a user of decks needs: schemas, loading and validation, the resolved Deck.
#include "core/deck/config.hpp"
#include "core/deck/deck_error.hpp"
#include "core/deck/load.hpp"
#include "core/deck/parse.hpp"
#include "core/deck/schema.hpp"
