#pragma once
// The schema of a deck: which tables and keys exist, their types, defaults, ranges and units.
// Built with a fluent API; the app composes the run-level schema with the chosen solver's:
//
//   Schema s;
//   s.table("nbody", "All-pairs N-body gravity")
//       .integer("n", "number of bodies").min(1).default_value(4096)
//       .floating("dt", "time step").unit("s").greater_than(0).default_value(0.01)
//       .choice("integrator", "time integrator", {"leapfrog", "euler"}).default_value("leapfrog")
//       .float_array("box", "edge lengths of the periodic box").length(3).unit("m").greater_than(0)
//           .default_value({1, 1, 1});
//   s.array_table("fdtd.source", "one [[fdtd.source]] block per source")
//       .float_array("position", "where the source sits").length(3).unit("m");
//
// A key with no default is required, unless marked optional(). Mistakes in a schema (a default
// of the wrong type or out of range, a duplicate key) are bugs and throw std::logic_error.
#include <cstddef>
#include <deque>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/deck/value.hpp"

namespace tessera::deck {

struct Bound {
  double value = 0;
  bool inclusive = true;
};

// Allowed interval of a number, or of every element of a numeric array.
struct Range {
  std::optional<Bound> lower, upper;

  bool empty() const { return !lower && !upper; }
  bool contains(double x) const;
  // "> 0", ">= 1 and <= 10"; empty when unbounded.
  std::string describe() const;
};

struct KeySpec {
  std::string name;
  KeyType type = KeyType::integer;
  std::string description;
  std::string unit;
  std::vector<std::string> choices;    // KeyType::choice only
  std::optional<std::size_t> length;   // arrays: exact number of elements
  Range range;                         // numbers and numeric array elements
  std::optional<Value> default_value;  // absent: required (unless optional)
  bool optional = false;               // no default, and may be left out
  bool file = false;                   // string naming an input file: resolved as core/deck/paths.hpp says

  bool required() const { return !default_value && !optional; }
  // "float", "array of 3 floats", "one of \"a\", \"b\"" (for messages and the reference).
  std::string type_description() const;
};

struct TableSpec {
  std::string name;  // full dotted name: "nbody", "fdtd.boundary", "fdtd.source"
  std::string description;
  bool array = false;  // an array of tables, written [[name]] once per element
  std::vector<KeySpec> keys;

  const KeySpec* find_key(std::string_view key) const;
  std::string header() const;  // "[nbody]" or "[[fdtd.source]]"
};

class Schema;
class KeyBuilder;

// Adds keys to one table; every key method returns a KeyBuilder to refine that key, which can
// go on to declare the table's next key.
class TableBuilder {
 public:
  KeyBuilder integer(std::string_view name, std::string_view description);
  KeyBuilder floating(std::string_view name, std::string_view description);
  KeyBuilder boolean(std::string_view name, std::string_view description);
  KeyBuilder string(std::string_view name, std::string_view description);
  // A string restricted to `choices` (an enum).
  KeyBuilder choice(std::string_view name, std::string_view description,
                    std::vector<std::string> choices);
  KeyBuilder integer_array(std::string_view name, std::string_view description);
  KeyBuilder float_array(std::string_view name, std::string_view description);
  // Reopens a declared key to refine it, e.g. a solver's own default for a run-level key.
  KeyBuilder key(std::string_view name);

  const TableSpec& spec() const { return *table_; }

 protected:
  TableBuilder(Schema* schema, TableSpec* table) : schema_(schema), table_(table) {}
  KeyBuilder add(std::string_view name, KeyType type, std::string_view description);

  Schema* schema_;
  TableSpec* table_;  // stable: Schema keeps tables in a deque
  friend class Schema;
};

class KeyBuilder : public TableBuilder {
 public:
  KeyBuilder& unit(std::string_view unit);
  KeyBuilder& min(double value);           // value >= min
  KeyBuilder& max(double value);           // value <= max
  KeyBuilder& greater_than(double value);  // value > bound
  KeyBuilder& less_than(double value);     // value < bound
  KeyBuilder& length(std::size_t n);       // arrays: exactly n elements
  KeyBuilder& optional();                  // no default; Config::has() tells whether it was set
  KeyBuilder& choices(std::vector<std::string> choices);  // string or choice key -> choice key
  KeyBuilder& file();                      // string key naming an input file (core/deck/paths.hpp)

  KeyBuilder& default_value(int value);
  KeyBuilder& default_value(std::int64_t value);
  KeyBuilder& default_value(double value);
  KeyBuilder& default_value(bool value);
  KeyBuilder& default_value(const char* value);
  KeyBuilder& default_value(std::string value);
  KeyBuilder& default_value(std::initializer_list<double> values);  // either array type
  KeyBuilder& default_value(IntArray values);
  KeyBuilder& default_value(FloatArray values);

  const KeySpec& key() const { return table_->keys[index_]; }

 private:
  KeyBuilder(Schema* schema, TableSpec* table, std::size_t index)
      : TableBuilder(schema, table), index_(index) {}
  KeySpec& mutable_key() { return table_->keys[index_]; }
  KeyBuilder& set_default(Value value);
  KeyBuilder& set_bound(std::optional<Bound>& bound, Bound value);
  void check_consistent() const;

  std::size_t index_;
  friend class TableBuilder;
};

class Schema {
 public:
  // Declares table `name` (dotted for a sub-table, whose parent must be declared first), or
  // reopens it to add keys.
  TableBuilder table(std::string_view name, std::string_view description = {});
  // Declares an array of tables, written [[name]] once per element.
  TableBuilder array_table(std::string_view name, std::string_view description = {});

  // Adds other's tables; a table present in both gains other's keys (a key in both is a bug).
  Schema& merge(const Schema& other);

  const TableSpec* find_table(std::string_view name) const;
  const std::deque<TableSpec>& tables() const { return tables_; }
  // Tables directly under `parent` ("" for top-level tables), in declaration order.
  std::vector<const TableSpec*> children(std::string_view parent) const;

  // The reference of every table and key: type, unit, default, range and description.
  std::string to_markdown() const;

 private:
  TableBuilder declare(std::string_view name, std::string_view description, bool array);
  TableSpec* find_mutable(std::string_view name);
  std::deque<TableSpec> tables_;  // deque: builders keep pointers to tables across additions
  friend class TableBuilder;
};

// "fdtd.source" -> "fdtd"; "nbody" -> "".
std::string_view parent_name(std::string_view table_name);
// "fdtd.source" -> "source".
std::string_view last_component(std::string_view dotted_name);

}  // namespace tessera::deck
