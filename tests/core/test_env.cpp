// The environment registry: typed getters parse declared variables, refuse bad values with
// the variable, the value and what is allowed, and refuse undeclared names as bugs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/env.hpp"
#include "core/error.hpp"

using namespace tessera;

namespace {

// Sets (or unsets, with nullptr) a variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The message of the InputError `f` throws ("" if it throws none).
template <class F>
std::string input_error(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST(Env, Boolean) {
  {
    ScopedEnv e("TESSERA_BFS_PROFILE", nullptr);
    EXPECT_EQ(env::get_boolean("TESSERA_BFS_PROFILE"), false);  // the declared fallback
  }
  for (const char* yes : {"1", "true", "ON", "Yes"}) {
    ScopedEnv e("TESSERA_BFS_PROFILE", yes);
    EXPECT_EQ(env::get_boolean("TESSERA_BFS_PROFILE"), true) << yes;
  }
  for (const char* no : {"0", "false", "off", "NO", ""}) {  // "": unset, the fallback
    ScopedEnv e("TESSERA_BFS_PROFILE", no);
    EXPECT_EQ(env::get_boolean("TESSERA_BFS_PROFILE"), false) << no;
  }
  {
    ScopedEnv e("TESSERA_CUDA_AWARE_MPI", nullptr);  // no fallback: detected
    EXPECT_EQ(env::get_boolean("TESSERA_CUDA_AWARE_MPI"), std::nullopt);
  }
  ScopedEnv e("TESSERA_CUDA_AWARE_MPI", "2");
  EXPECT_EQ(input_error([] { env::get_boolean("TESSERA_CUDA_AWARE_MPI"); }),
            "environment variable TESSERA_CUDA_AWARE_MPI='2': '2' is not a flag (expected 1/0, true/false, on/off or "
            "yes/no)");
}

TEST(Env, Integer) {
  {
    ScopedEnv e("TESSERA_BENCH_BFS_ROOTS", nullptr);
    EXPECT_EQ(env::get_integer("TESSERA_BENCH_BFS_ROOTS"), std::nullopt);  // the reader's default
  }
  {
    ScopedEnv e("TESSERA_BENCH_BFS_ROOTS", " 16 ");
    EXPECT_EQ(env::get_integer("TESSERA_BENCH_BFS_ROOTS"), 16);
  }
  {
    ScopedEnv e("TESSERA_BENCH_BFS_ROOTS", "");
    EXPECT_EQ(env::get_integer("TESSERA_BENCH_BFS_ROOTS"), std::nullopt);
  }
  {
    ScopedEnv e("TESSERA_BENCH_BFS_ROOTS", "16x");
    EXPECT_EQ(input_error([] { env::get_integer("TESSERA_BENCH_BFS_ROOTS"); }),
              "environment variable TESSERA_BENCH_BFS_ROOTS='16x': '16x' is not an integer (expected an integer >= 1 "
              "and <= 2147483647)");
  }
  {
    ScopedEnv e("TESSERA_BENCH_BFS_ROOTS", "0");
    EXPECT_EQ(input_error([] { env::get_integer("TESSERA_BENCH_BFS_ROOTS"); }),
              "environment variable TESSERA_BENCH_BFS_ROOTS='0': 0 is out of range (expected an integer >= 1 and <= "
              "2147483647)");
  }
  ScopedEnv e("TESSERA_BENCH_BFS_ROOTS", "99999999999999999999");
  EXPECT_NE(input_error([] { env::get_integer("TESSERA_BENCH_BFS_ROOTS"); }).find("is out of range"),
            std::string::npos);
}

TEST(Env, Integers) {
  {
    ScopedEnv e("TESSERA_BENCH_BFS_SCALES", "20, 22,,24");
    EXPECT_EQ(env::get_integers("TESSERA_BENCH_BFS_SCALES"), (std::vector<long long>{20, 22, 24}));
  }
  {
    ScopedEnv e("TESSERA_BENCH_FDTD_SIZES", "");  // set but empty: the empty list (no one-rank sizes)
    EXPECT_EQ(env::get_integers("TESSERA_BENCH_FDTD_SIZES"), std::vector<long long>{});
  }
  {
    ScopedEnv e("TESSERA_NBODY_SIZES", nullptr);  // the declared fallback
    EXPECT_EQ(env::get_integers("TESSERA_NBODY_SIZES"), (std::vector<long long>{4096, 262144, 1048576}));
  }
  {
    ScopedEnv e("TESSERA_BENCH_BFS_SCALES", "20,35");
    EXPECT_EQ(input_error([] { env::get_integers("TESSERA_BENCH_BFS_SCALES"); }),
              "environment variable TESSERA_BENCH_BFS_SCALES='20,35': 35 is out of range (expected comma-separated "
              "integers, each >= 1 and <= 34)");
  }
  ScopedEnv e("TESSERA_BENCH_BFS_EAGER", "0,4k");
  EXPECT_EQ(input_error([] { env::get_integers("TESSERA_BENCH_BFS_EAGER"); }),
            "environment variable TESSERA_BENCH_BFS_EAGER='0,4k': '4k' is not an integer (expected comma-separated "
            "integers, each >= 0)");
}

TEST(Env, Choice) {
  {
    ScopedEnv e("TESSERA_LOG_LEVEL", nullptr);
    EXPECT_EQ(env::get_choice("TESSERA_LOG_LEVEL"), "info");
  }
  {
    ScopedEnv e("TESSERA_LOG_LEVEL", "debug");
    EXPECT_EQ(env::get_choice("TESSERA_LOG_LEVEL"), "debug");
  }
  ScopedEnv e("TESSERA_LOG_LEVEL", "loud");
  EXPECT_EQ(input_error([] { env::get_choice("TESSERA_LOG_LEVEL"); }),
            "environment variable TESSERA_LOG_LEVEL='loud': 'loud' is not allowed (expected one of debug, info, warn, "
            "warning, error, off)");
}

TEST(Env, Words) {
  {
    ScopedEnv e("TESSERA_BENCH_BFS_LOOP", nullptr);
    EXPECT_EQ(env::get_words("TESSERA_BENCH_BFS_LOOP"), std::nullopt);
  }
  {
    ScopedEnv e("TESSERA_BENCH_BFS_LOOP", "device, host");
    EXPECT_EQ(env::get_words("TESSERA_BENCH_BFS_LOOP"), (std::vector<std::string>{"device", "host"}));
  }
  {
    ScopedEnv e("TESSERA_BENCH_BFS_LOOP", "device,gpu");
    EXPECT_EQ(input_error([] { env::get_words("TESSERA_BENCH_BFS_LOOP"); }),
              "environment variable TESSERA_BENCH_BFS_LOOP='device,gpu': 'gpu' is not allowed (expected "
              "comma-separated, each one of device, host)");
  }
  // No declared words: any word passes, the reader checks it.
  ScopedEnv e("TESSERA_NBODY_KERNELS", "split-all,tiled:g256:s1:b4");
  EXPECT_EQ(env::get_words("TESSERA_NBODY_KERNELS"), (std::vector<std::string>{"split-all", "tiled:g256:s1:b4"}));
}

TEST(Env, String) {
  ScopedEnv e("TESSERA_FAKE_DISK_DIR", "/tmp/a, b");
  EXPECT_EQ(env::get_string("TESSERA_FAKE_DISK_DIR"), "/tmp/a, b");
}

TEST(Env, UndeclaredOrMistypedReadsAreBugs) {
  EXPECT_THROW(env::get_boolean("TESSERA_NO_SUCH_THING"), std::logic_error);
  EXPECT_THROW(env::lookup("TESSERA_BFS_PROFIL"), std::logic_error);
  EXPECT_THROW(env::get_integer("TESSERA_BFS_PROFILE"), std::logic_error);  // a flag, not an integer
  EXPECT_THROW(env::get_words("TESSERA_BENCH_BFS_SCALES"), std::logic_error);
  // ... and not InputError, which would blame the user.
  EXPECT_EQ(input_error([] {
              try {
                env::get_boolean("TESSERA_NO_SUCH_THING");
              } catch (const std::logic_error&) {
              }
            }),
            "");
}

// Every declaration is complete, and every declared fallback is a valid value of its type.
TEST(Env, DeclarationsAreValid) {
  for (const env::Variable& v : env::registry()) {
    SCOPED_TRACE(std::string(v.name));
    EXPECT_FALSE(v.help.empty());
    EXPECT_FALSE(v.used_by.empty());
    EXPECT_TRUE(!v.fallback.empty() || !v.default_doc.empty()) << "no default stated";
    EXPECT_TRUE(v.fallback.empty() || v.default_doc.empty()) << "two defaults";
    if (v.type == env::Type::choice) {
      EXPECT_FALSE(v.choices.empty());
    }
    const std::string name(v.name);
    ScopedEnv unset(name.c_str(), nullptr);
    switch (v.type) {
      case env::Type::boolean: EXPECT_NO_THROW(env::get_boolean(v.name)); break;
      case env::Type::integer: EXPECT_NO_THROW(env::get_integer(v.name)); break;
      case env::Type::integers: EXPECT_NO_THROW(env::get_integers(v.name)); break;
      case env::Type::choice: EXPECT_NO_THROW(env::get_choice(v.name)); break;
      case env::Type::words: EXPECT_NO_THROW(env::get_words(v.name)); break;
      case env::Type::string: EXPECT_NO_THROW(env::get_string(v.name)); break;
    }
  }
}

TEST(Env, Undeclared) {
  const char* environment[] = {"PATH=/usr/bin", "TESSERA_BFS_PROFIL=1", "TESSERA_BFS_PROFILE=1",
                               "TESSERA_FAKE_DISK_DIR=/tmp", "TESSERA_X", "TESSERAX=1", "MY_TESSERA_Y=1", nullptr};
  EXPECT_EQ(env::undeclared(environment), (std::vector<std::string>{"TESSERA_BFS_PROFIL", "TESSERA_X"}));
  EXPECT_TRUE(env::undeclared(nullptr).empty());
}

TEST(Env, Markdown) {
  const std::string md = env::to_markdown();
  for (const env::Variable& v : env::registry()) EXPECT_NE(md.find(fmt::format("| `{}` |", v.name)), std::string::npos);
  // Test-only variables come last, in their own section.
  const auto test_only = md.find("## Test-only");
  ASSERT_NE(test_only, std::string::npos);
  EXPECT_GT(md.find("`TESSERA_FAKE_DISK_DIR`"), test_only);
  EXPECT_LT(md.find("`TESSERA_BFS_PROFILE`"), test_only);
  EXPECT_NE(md.find("| `TESSERA_BENCH_BFS_LOOP` | list of words | device | comma-separated, each one of `device`, "
                    "`host` | bench bfs |"),
            std::string::npos);
}
