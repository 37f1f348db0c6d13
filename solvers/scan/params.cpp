#include "solvers/scan/params.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <optional>
#include <tuple>

#include "comm/errors.hpp"
#include "core/error.hpp"
#include "solvers/scan/input.hpp"
#include "solvers/scan/backend.hpp"

namespace tessera::scan {
namespace {

std::optional<ValueType> scan_type_of(io::ElementType t) {
  switch (t) {
    case io::ElementType::int32: return ValueType::int32;
    case io::ElementType::int64: return ValueType::int64;
    case io::ElementType::float32: return ValueType::float32;
    case io::ElementType::float64: return ValueType::float64;
    default: return std::nullopt;
  }
}

bool is_integer(ValueType t) { return t == ValueType::int32 || t == ValueType::int64; }

// Integer inputs: low/high/value must be whole numbers the type holds (int64 up to 2^62, so
// the generator's arithmetic stays exact in double and int64).
void check_generator_value(const deck::Config& deck, std::string_view key, double v, ValueType type) {
  if (!std::isfinite(v)) throw InputError(fmt::format("{}: {} must be finite", deck.where(key), key));
  if (!is_integer(type)) return;
  const double limit = type == ValueType::int32 ? 2147483647.0 : 4611686018427387904.0;
  const double lowest = type == ValueType::int32 ? -2147483648.0 : -limit;
  if (v != std::floor(v) || v < lowest || v > limit)
    throw InputError(fmt::format("{}: {} = {} is not a whole number in the range of {} ([{:.0f}, {:.0f}])",
                                 deck.where(key), key, v, to_string(type), lowest, limit));
}

Generator read_generator(const deck::Config& deck, ValueType type) {
  Generator g;
  g.kind = deck.get_string("scan.input.generator") == "constant" ? GeneratorKind::constant : GeneratorKind::random;
  g.seed = static_cast<std::uint64_t>(deck.get_int("scan.input.seed"));
  g.low = deck.get_double("scan.input.low");
  g.high = deck.get_double("scan.input.high");
  g.value = deck.get_double("scan.input.value");
  if (g.kind == GeneratorKind::constant) {
    check_generator_value(deck, "scan.input.value", g.value, type);
  } else {
    check_generator_value(deck, "scan.input.low", g.low, type);
    check_generator_value(deck, "scan.input.high", g.high, type);
    if (g.low > g.high)
      throw InputError(fmt::format("{}: scan.input.low = {} is above scan.input.high = {}",
                                   deck.where("scan.input.low"), g.low, g.high));
  }
  return g;
}

// Opens the dataset and checks it against the deck; returns its type and length.
std::pair<ValueType, std::int64_t> check_file_input(comm::Context& ctx, const deck::Config& deck,
                                                    const InputSetup& in) {
  if (in.file.empty())
    throw InputError(fmt::format("{}: scan.input.source = \"file\" needs scan.input.file (an HDF5 file)",
                                 deck.where("scan.input.source")));
  DatasetInfo info;
  try {
    info = probe_dataset(ctx, in.file, in.dataset);
  } catch (const InputError& e) {  // the same on every rank (agreed by the io layer)
    comm::rethrow_input(e, fmt::format("{} / {}: {}", deck.where("scan.input.file"), deck.where("scan.input.dataset"),
                                       e.what()));
  }
  const std::string what = fmt::format("dataset {} in {}", in.dataset, in.file);
  if (info.extent.size() != 1)
    throw InputError(fmt::format("{}: {} has {} dimensions {}; the scan reads a 1-D dataset",
                                 deck.where("scan.input.dataset"), what, info.extent.size(), info.extent));
  const std::optional<ValueType> type = scan_type_of(info.type);
  if (!type) {
    // io::to_string names an unreadable type (compound, complex, ...) "an unsupported type" already.
    const std::string held = info.type == io::ElementType::other
                                 ? io::to_string(info.type)
                                 : fmt::format("{}, an unsupported type", io::to_string(info.type));
    throw InputError(fmt::format("{}: {} holds {}; the scan sums int32, int64, float32 or float64",
                                 deck.where("scan.input.dataset"), what, held));
  }
  const std::string& wanted = deck.get_string("scan.type");
  if (wanted != "auto" && parse_value_type(wanted) != *type)
    throw InputError(fmt::format("{}: scan.type = \"{}\" but {} holds {} (scan.type = \"auto\" takes the file's type)",
                                 deck.where("scan.type"), wanted, what, to_string(*type)));
  if (deck.has("scan.input.length") && deck.get_int("scan.input.length") != info.extent[0])
    throw InputError(fmt::format("{}: scan.input.length = {} but {} has {} elements", deck.where("scan.input.length"),
                                 deck.get_int("scan.input.length"), what, info.extent[0]));
  return {*type, info.extent[0]};
}

}  // namespace

std::string_view to_string(VerifyMode m) {
  switch (m) {
    case VerifyMode::none: return "none";
    case VerifyMode::sample: return "sample";
    default: return "full";
  }
}

std::string InputSetup::describe() const {
  if (from_file) return fmt::format("file {} dataset {}", file, dataset);
  if (generator.kind == GeneratorKind::constant) return fmt::format("constant {}", generator.value);
  return fmt::format("random uniform in [{}, {}] seed {}", generator.low, generator.high, generator.seed);
}

Params params_from_deck(comm::Context& ctx, const deck::Config& deck, Backend backend) {
  Params s;
  s.mode = parse_mode(deck.get_string("scan.mode"));
  const Variant requested = parse_variant(deck.get_string("scan.variant"));
  if (requested != Variant::automatic && !is_host_variant(requested) && backend != Backend::cuda)
    throw InputError(fmt::format("{}: variant \"{}\" runs on a GPU, but this run's backend is {} "
                                 "(use run.backend = \"cuda\" on a GPU node, or variant \"cpu\")",
                                 deck.where("scan.variant"), to_string(requested), tessera::to_string(backend)));
  const std::string& verify = deck.get_string("scan.verify");
  s.verify = verify == "none" ? VerifyMode::none : verify == "full" ? VerifyMode::full : VerifyMode::sample;
  s.verify_windows = static_cast<int>(deck.get_int("scan.verify_windows"));
  s.write_input = deck.get_bool("scan.write_input");

  s.input.from_file = deck.get_string("scan.input.source") == "file";
  if (s.input.from_file) {
    s.input.file = deck.get_string("scan.input.file");
    s.input.dataset = deck.get_string("scan.input.dataset");
    std::tie(s.input_type, s.length) = check_file_input(ctx, deck, s.input);
  } else {
    if (!deck.has("scan.input.length"))
      throw InputError(fmt::format("{}: a generated input needs scan.input.length (the number of elements)",
                                   deck.where("scan.input.source")));
    s.length = deck.get_int("scan.input.length");
    const std::string& type = deck.get_string("scan.type");
    s.input_type = type == "auto" ? ValueType::int32 : parse_value_type(type);
    s.input.generator = read_generator(deck, s.input_type);
  }

  s.output_type = s.input_type;
  if (deck.get_string("scan.accumulate") == "int64") {
    if (!is_integer(s.input_type))
      throw InputError(fmt::format("{}: accumulate = \"int64\" applies to integer input, but the input is {}",
                                   deck.where("scan.accumulate"), to_string(s.input_type)));
    s.output_type = ValueType::int64;
  }
  s.variant = resolve_variant(requested, backend, s.output_type != s.input_type);
  return s;
}

}  // namespace tessera::scan
