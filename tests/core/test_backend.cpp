// Backend parsing and resolution.
#include <gtest/gtest.h>

#include <string>

#include "core/backend.hpp"
#include "core/error.hpp"

using namespace tessera;

TEST(Backend, Parse) {
  EXPECT_EQ(parse_backend("auto"), BackendRequest::auto_select);
  EXPECT_EQ(parse_backend("cpu"), BackendRequest::cpu);
  EXPECT_EQ(parse_backend("cuda"), BackendRequest::cuda);
  try {
    parse_backend("gpu", "--backend");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--backend: unknown backend 'gpu' (expected auto, cpu or cuda)");
  }
}

TEST(Backend, Resolve) {
  EXPECT_EQ(resolve_backend(BackendRequest::cpu), Backend::cpu);
  const bool gpu = cuda_compiled() && visible_device_count() > 0;
  EXPECT_EQ(resolve_backend(BackendRequest::auto_select), gpu ? Backend::cuda : Backend::cpu);
  if (gpu)
    EXPECT_EQ(resolve_backend(BackendRequest::cuda), Backend::cuda);
  else
    EXPECT_THROW(resolve_backend(BackendRequest::cuda), InputError);
}

// A forced cuda that cannot be met names where it was asked for and how to run on the CPU:
// from a deck, --backend cpu or backend = "auto"; from the command line, --backend cpu.
TEST(Backend, ForcedCudaWithoutDeviceSaysWhereAndWhatInstead) {
  if (cuda_compiled() && visible_device_count() > 0) GTEST_SKIP() << "a GPU is visible: cuda is granted";
  const std::string reason = cuda_compiled() ? "no CUDA device is visible to this rank" : "built without CUDA";
  try {
    resolve_backend(BackendRequest::cuda, "run.backend = \"cuda\" (deck.toml:7)");
    FAIL() << "cuda granted without a device";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(msg.starts_with("run.backend = \"cuda\" (deck.toml:7): backend 'cuda' requested, but ")) << msg;
    EXPECT_NE(msg.find(reason), std::string::npos) << msg;
    EXPECT_NE(msg.find("pass --backend cpu (or set backend = \"auto\" in the deck"), std::string::npos) << msg;
  }
  try {
    resolve_backend(BackendRequest::cuda);  // the default: the command line's --backend cuda
    FAIL() << "cuda granted without a device";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(msg.starts_with("--backend cuda: backend 'cuda' requested")) << msg;
    EXPECT_NE(msg.find("use --backend cpu (or --backend auto"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("in the deck"), std::string::npos) << msg;
  }
}
