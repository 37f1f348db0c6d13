#pragma once
// Realistic schemas for the deck tests: run-level tables, an N-body solver and an FDTD solver
// with a sub-table, arrays of tables and a sub-table inside an array element.
#include <string>
#include <vector>

#include "core/deck/deck.hpp"
#include "gtest/gtest.h"

namespace tessera::deck::test {

inline Schema run_schema() {
  Schema s;
  s.table("run", "what to run and where")
      .string("solver", "the solver").optional()
      .integer("steps", "number of steps").min(0).default_value(100)
      .floating("end_time", "stop once the simulated time reaches this").unit("s").min(0).optional()
      .choice("backend", "where the solver runs", {"auto", "cpu", "cuda"}).default_value("auto")
      .string("output_dir", "directory for outputs").default_value("output");
  s.table("output", "solver outputs")
      .integer("every", "write an output every this many steps").min(0).default_value(0)
      .boolean("at_end", "write an output after the last step").default_value(true);
  s.table("checkpoint", "restart files")
      .integer("every", "checkpoint every this many steps").min(0).default_value(0)
      .integer("keep", "newest checkpoints kept").min(1).default_value(2);
  s.table("diagnostics", "conserved quantities")
      .integer("every", "diagnostics every this many steps").min(0).default_value(0);
  return s;
}

inline Schema nbody_schema() {
  Schema s;
  s.table("nbody", "All-pairs N-body gravity")
      .integer("n", "number of bodies").min(1).default_value(4096)
      .floating("dt", "time step").unit("s").greater_than(0)
      .floating("softening", "Plummer softening length").unit("m").min(0).default_value(0.01)
      .choice("integrator", "time integrator", {"leapfrog", "euler", "rk4"}).default_value("leapfrog")
      .float_array("box", "edge lengths of the initial box").length(3).unit("m").greater_than(0)
      .default_value({1, 1, 1})
      .integer("seed", "random seed of the initial conditions").min(0).default_value(42)
      .boolean("periodic", "wrap positions into the box").default_value(false);
  return s;
}

inline Schema fdtd_schema() {
  Schema s;
  s.table("fdtd", "3D Yee FDTD")
      .integer_array("cells", "cells per axis").length(3).min(1)
      .floating("dx", "cell size").unit("m").greater_than(0).default_value(1e-3)
      .floating("courant", "Courant number").greater_than(0).max(1).default_value(0.99)
      .float_array("weights", "any number of weights").min(0).default_value({0.5, 0.25});
  s.table("fdtd.boundary", "boundary conditions")
      .choice("kind", "boundary kind", {"pml", "pec", "periodic"}).default_value("pml")
      .integer("pml_cells", "CPML thickness in cells").min(0).default_value(10);
  s.array_table("fdtd.source", "field sources")
      .float_array("position", "source position").length(3).unit("m")
      .floating("amplitude", "peak field").unit("V/m").default_value(1.0)
      .choice("waveform", "time profile", {"gaussian", "sine"}).default_value("gaussian")
      .string("label", "name in the output").optional();
  s.table("fdtd.source.shape", "spatial profile of a source")
      .floating("radius", "radius of the profile").unit("m").min(0).default_value(0.0);
  s.array_table("fdtd.probe", "field probes")
      .integer_array("cell", "probed cell").length(3).min(0);
  return s;
}

inline Schema nbody_deck_schema() { return run_schema().merge(nbody_schema()); }
inline Schema fdtd_deck_schema() { return run_schema().merge(fdtd_schema()); }

// The problems of a deck that must fail to load; the test fails if it loads.
inline std::vector<std::string> problems_of(const Schema& schema, const std::string& text,
                                            std::vector<std::string> overrides = {}) {
  try {
    load_deck(schema, text, "demo.toml", overrides);
  } catch (const DeckError& e) {
    return e.problems();
  }
  ADD_FAILURE() << "the deck loaded without errors:\n" << text;
  return {};
}

// The whole message of a deck that must fail to load.
inline std::string error_of(const Schema& schema, const std::string& text,
                            std::vector<std::string> overrides = {}) {
  try {
    load_deck(schema, text, "demo.toml", overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the deck loaded without errors:\n" << text;
  return {};
}

}  // namespace tessera::deck::test
