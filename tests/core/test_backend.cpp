// Backend parsing and resolution.
#include <gtest/gtest.h>

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
