"""Post-processing for tessera: one module per solver, plus benchmarks."""
