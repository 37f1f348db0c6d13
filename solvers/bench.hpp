#pragma once
// What a benchmark takes and returns. Solvers define their benchmarks (`tessera bench nbody`)
// with these types; app/bench.cpp prints the table and writes the JSON.
#include <string>
#include <vector>

namespace tessera {

struct BenchOptions {
  std::string target;
  std::string json;  // also write JSON here when set
  std::string backend = "auto";
  std::string transport = "auto";
  int repeat = 20;
  bool quick = false;
};

struct BenchRow {
  std::string name;     // kernel / variant / pattern
  std::string size;     // problem size as text ("2^26", "512^3", "4 MiB")
  double seconds = 0;   // median time of one repetition
  double rate = 0;      // in `unit`
  std::string unit;     // "GB/s", "G interactions/s", ...
  double fraction = 0;  // of the stated limit (0 when none)
  std::string note;
};

struct BenchReport {
  std::string title;
  std::string device;  // what it ran on, for the record
  std::string limit;   // the limit `fraction` refers to
  std::vector<BenchRow> rows;
};

}  // namespace tessera
