#include "solvers/scan/schema.hpp"

#include "solvers/scan/types.hpp"

namespace tessera::scan {

deck::Schema scan_schema() {
  deck::Schema s;
  s.table("scan", "distributed prefix sum: each step scans the whole input once")
      .choice("type", "element type of the input (auto: the dataset's type for a file, int32 when generated)",
              {"auto", "int32", "int64", "float32", "float64"})
      .default_value("auto")
      .choice("accumulate", "sum in the input type (same), or for int32 input in int64 so sums past 2^31 stay exact",
              {"same", "int64"})
      .default_value("same")
      .choice("mode", "inclusive: out[i] = in[0] + ... + in[i]; exclusive: in[0] + ... + in[i-1], out[0] = 0",
              {"inclusive", "exclusive"})
      .default_value("inclusive")
      .choice("variant",
              "algorithm: auto (lookback on GPUs, the fastest measured, cub when int32 accumulates into int64; cpu otherwise), cpu (OpenMP), cpu-serial, the seed's hillis-steele, "
              "blelloch and blelloch-padded, lookback (single pass), cub, thrust",
              variant_names())
      .default_value("auto")
      .choice("verify", "compare the result with a CPU reference: none, sample (windows of 256 elements) or full",
              {"none", "sample", "full"})
      .default_value("sample")
      .integer("verify_windows", "windows the sample check compares, besides each rank's first and last")
      .min(1)
      .default_value(64)
      .boolean("write_input", "also write the input into scan.h5 (as /input)")
      .default_value(false);
  s.table("scan.input", "where the sequence comes from")
      .choice("source", "generate it, or read a 1-D dataset from an HDF5 file", {"generate", "file"})
      .default_value("generate")
      .integer("length", "number of elements: required when generated; for a file, checked against the dataset")
      .min(0)
      .optional()
      .choice("generator", "random: independent values uniform in [low, high]; constant: every element is `value`",
              {"random", "constant"})
      .default_value("random")
      .integer("seed", "seed of the counter-based generator (the same input for any number of ranks)")
      .min(0)
      .default_value(1)
      .floating("low", "smallest random value (integer types: a whole number in the type's range)")
      .default_value(-100.0)
      .floating("high", "largest random value (integer types: included)")
      .default_value(100.0)
      .floating("value", "the constant generator's value")
      .default_value(1.0)
      .string("file", "HDF5 file to read (source = \"file\")").file()
      .default_value("")
      .string("dataset", "path of the 1-D dataset in the file (int32, int64, float32 or float64)")
      .default_value("/x");
  return s;
}

}  // namespace tessera::scan
