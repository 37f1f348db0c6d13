// Attributes on files (root group), groups and datasets: scalars of every kind, strings,
// vectors, string vectors, existence, replacement, strict types, and a large string.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera::io {
namespace {

using test::context;

void write_all(const Object& o, const std::string& tag) {
  write_attribute(o, "i8", std::int8_t{-7});
  write_attribute(o, "u16", std::uint16_t{65000});
  write_attribute(o, "i32", std::int32_t{-123456});
  write_attribute(o, "i64", std::int64_t{-9'000'000'000'000LL});
  write_attribute(o, "u64", std::uint64_t{0xFEDCBA9876543210ull});
  write_attribute(o, "f32", 1.25f);
  write_attribute(o, "f64", 6.02214076e23);
  write_attribute(o, "name", "tessera " + tag);
  write_attribute(o, "empty_string", "");
  write_attribute(o, "vec", std::vector<double>{1.5, -2.5, 3.25});
  write_attribute(o, "empty_vec", std::vector<std::int32_t>{});
  write_attribute(o, "columns", std::vector<std::string>{"step", "time", "kinetic energy"});
  write_vlen_attribute(o, "vlen_columns", std::vector<std::string>{"step", "time", "énergie cinétique"});
  write_vlen_attribute(o, "vlen_name", "V/m " + tag);
  write_vlen_attribute(o, "vlen_empty", std::vector<std::string>{});
}

void expect_all(const Object& o, const std::string& tag) {
  EXPECT_EQ(read_attribute<std::int8_t>(o, "i8"), -7);
  EXPECT_EQ(read_attribute<std::uint16_t>(o, "u16"), 65000);
  EXPECT_EQ(read_attribute<std::int32_t>(o, "i32"), -123456);
  EXPECT_EQ(read_attribute<std::int64_t>(o, "i64"), -9'000'000'000'000LL);
  EXPECT_EQ(read_attribute<std::uint64_t>(o, "u64"), 0xFEDCBA9876543210ull);
  EXPECT_EQ(read_attribute<float>(o, "f32"), 1.25f);
  EXPECT_EQ(read_attribute<double>(o, "f64"), 6.02214076e23);
  EXPECT_EQ(read_attribute<std::string>(o, "name"), "tessera " + tag);
  EXPECT_EQ(read_attribute<std::string>(o, "empty_string"), "");
  EXPECT_EQ(read_attribute<std::vector<double>>(o, "vec"), (std::vector<double>{1.5, -2.5, 3.25}));
  EXPECT_TRUE(read_attribute<std::vector<std::int32_t>>(o, "empty_vec").empty());
  EXPECT_EQ(read_attribute<std::vector<std::string>>(o, "columns"),
            (std::vector<std::string>{"step", "time", "kinetic energy"}));
  EXPECT_EQ(read_attribute<std::vector<std::string>>(o, "vlen_columns"),
            (std::vector<std::string>{"step", "time", "énergie cinétique"}));
  EXPECT_EQ(read_attribute<std::string>(o, "vlen_name"), "V/m " + tag);
  EXPECT_TRUE(read_attribute<std::vector<std::string>>(o, "vlen_empty").empty());
  EXPECT_TRUE(is_vlen_string_attribute(o, "vlen_columns"));
  EXPECT_TRUE(is_vlen_string_attribute(o, "vlen_name"));
  EXPECT_FALSE(is_vlen_string_attribute(o, "columns"));
  EXPECT_FALSE(is_vlen_string_attribute(o, "f64"));
  EXPECT_TRUE(has_attribute(o, "f64"));
  EXPECT_FALSE(has_attribute(o, "nope"));
}

TEST(Attributes, RoundTripOnFileGroupAndDataset) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  {
    File f = File::create(ctx, dir / "a.h5");
    write_all(f.root(), "file");
    write_all(f.root().create_group("a/b"), "group");
    const std::vector<double> one{1.0};
    write_all(write_1d<double>(f.root(), "a/b/d", ctx.is_root() ? std::span<const double>(one) : std::span<const double>(),
                               0, 1),
              "dataset");
  }
  File f = File::open(ctx, dir / "a.h5");
  expect_all(f.root(), "file");
  expect_all(f.root().open_group("a/b"), "group");
  expect_all(f.root().open_dataset("a/b/d"), "dataset");
}

TEST(Attributes, ReplaceStrictTypesAndMissing) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  File f = File::create(ctx, dir / "b.h5");
  const Group g = f.root();
  write_attribute(g, "x", std::int64_t{5});
  write_attribute(g, "x", 2.5);  // replaces, with another type
  EXPECT_EQ(read_attribute<double>(g, "x"), 2.5);

  std::string msg = test::thrown_message<InputError>([&] { read_attribute<float>(g, "x"); });
  TESSERA_EXPECT_CONTAINS(msg, "attribute 'x' of / in");
  TESSERA_EXPECT_CONTAINS(msg, "has type float64, expected float32");

  msg = test::thrown_message<InputError>([&] { read_attribute<std::string>(g, "x"); });
  TESSERA_EXPECT_CONTAINS(msg, "expected string");

  msg = test::thrown_message<InputError>([&] { read_attribute<double>(g, "missing"); });
  TESSERA_EXPECT_CONTAINS(msg, "has no attribute 'missing'");
  TESSERA_EXPECT_CONTAINS(msg, (dir / "b.h5").string());

  remove_attribute(g, "x");
  EXPECT_FALSE(has_attribute(g, "x"));
}

// Beyond the 64 KiB object-header limit of old-format attributes: needs dense storage.
TEST(Attributes, LargeStringAttribute) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  std::string big;
  for (int i = 0; big.size() < 200'000; ++i) big += "line " + std::to_string(i) + " of a long deck\n";
  {
    File f = File::create(ctx, dir / "c.h5");
    write_attribute(f.root(), "deck", big);
  }
  File f = File::open(ctx, dir / "c.h5");
  EXPECT_EQ(read_attribute<std::string>(f.root(), "deck"), big);
}

// openPMD's (string): fixed-length, ASCII character set, read back like any string; non-ASCII refused.
TEST(Attributes, AsciiStrings) {
  auto& ctx = context();
  test::TempDir dir(ctx);
  {
    File f = File::create(ctx, dir / "a.h5");
    write_ascii_attribute(f.root(), "basePath", "/data/%T/");
    write_ascii_attribute(f.root(), "axisLabels", std::vector<std::string>{"x", "y", "z"});
    EXPECT_THROW(write_ascii_attribute(f.root(), "bad", "énergie"), std::invalid_argument);
  }
  File f = File::open(ctx, dir / "a.h5");
  EXPECT_EQ(read_attribute<std::string>(f.root(), "basePath"), "/data/%T/");
  EXPECT_EQ(read_attribute<std::vector<std::string>>(f.root(), "axisLabels"), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_FALSE(is_vlen_string_attribute(f.root(), "basePath"));
  Handle attr(H5Aopen(f.root().id(), "basePath", H5P_DEFAULT));
  Handle type(H5Aget_type(attr));
  EXPECT_EQ(H5Tget_cset(type), H5T_CSET_ASCII);
  EXPECT_EQ(H5Tget_size(type), 9u);
}

}  // namespace
}  // namespace tessera::io
