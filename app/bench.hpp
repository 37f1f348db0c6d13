#pragma once
// `tessera bench TARGET`: benchmark tables as text (for the terminal and docs/performance.md)
// and JSON (for tools/ plots). A benchmark measures; it never asserts (tests do that).
#include <string>
#include <vector>

#include "comm/context.hpp"

namespace tessera::app {

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

std::string bench_targets();  // "comm, nbody, ..." for --help
int run_bench(comm::Context& ctx, const BenchOptions& options);
// Text table and JSON of a report (rank 0 prints/writes).
std::string format_table(const BenchReport& report);
std::string to_json(const BenchReport& report, const BenchOptions& options);

}  // namespace tessera::app
