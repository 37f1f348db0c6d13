// RAII buffers and streams: ownership moves, sizes are checked, data round-trips; device
// buffers on a GPU, a clear CudaError where there is none; stream priorities.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "core/stream.hpp"

using namespace tessera;

namespace {
std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-1e3, 1e3);
  std::vector<double> v(n);
  for (auto& x : v) x = d(g);
  return v;
}
bool have_gpu() { return cuda_compiled() && visible_device_count() > 0; }
}  // namespace

TEST(PinnedBuffer, RoundTripAndMove) {
  const auto src = random_values(1001, 1);
  PinnedBuffer<double> a(src.size());
  ASSERT_EQ(a.size(), src.size());
  ASSERT_EQ(a.bytes(), src.size() * sizeof(double));
  a.upload(src);
  PinnedBuffer<double> b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.size(), 0u);
  std::vector<double> back(src.size(), -7.0);
  b.download(back);
  EXPECT_EQ(back, src);
  PinnedBuffer<double> c;
  c = std::move(b);
  EXPECT_EQ(c.size(), src.size());
  EXPECT_TRUE(b.empty());
}

TEST(PinnedBuffer, SizeMismatchThrows) {
  PinnedBuffer<int> a(10);
  std::vector<int> wrong(9, 1);
  EXPECT_THROW(a.upload(wrong), std::length_error);
}

TEST(DeviceBuffer, EmptyAllocatesNothing) {
  DeviceBuffer<float> e(0);
  EXPECT_EQ(e.data(), nullptr);
  EXPECT_TRUE(e.empty());
}

TEST(DeviceBuffer, WithoutGpuThrowsClearError) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is visible; the no-GPU path cannot be tested here";
  try {
    DeviceBuffer<float> d(16);
    FAIL() << "allocation without a GPU succeeded";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find(cuda_compiled() ? "cudaMalloc" : "without CUDA"), std::string::npos)
        << e.what();
  }
}

TEST(DeviceBuffer, RoundTripOnGpu) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device visible (gpu test)";
  const auto src = random_values(1 << 20, 2);
  DeviceBuffer<double> d(src.size());
  fill_device_bytes(d.data(), 0xFF, d.bytes());  // poison
  d.upload(src);
  DeviceBuffer<double> e(src.size());
  copy_bytes(e.data(), d.data(), d.bytes());
  std::vector<double> back(src.size());
  e.download(back);
  EXPECT_EQ(back, src);
}

#if defined(TESSERA_HAVE_CUDA)
TEST(CudaCheck, ThrowsWithCallFileAndLine) {
  try {
    TESSERA_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "no throw";
  } catch (const CudaError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cudaErrorInvalidValue"), std::string::npos) << m;
    EXPECT_NE(m.find("test_buffers.cpp:"), std::string::npos) << m;
  }
}
#endif

#if defined(TESSERA_HAVE_CUDA)
// Communication streams run at the device's highest priority, compute streams at the lowest
// (core/stream.hpp): the overlap of halo and ring transfers depends on it.
TEST(Stream, HighPriorityIsTheDevicesMostUrgent) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device visible (gpu test)";
  int least = 0, greatest = 0;
  TESSERA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  const Stream high(StreamPriority::high), normal;
  int p_high = 0, p_normal = 0;
  TESSERA_CUDA_CHECK(cudaStreamGetPriority(high.get(), &p_high));
  TESSERA_CUDA_CHECK(cudaStreamGetPriority(normal.get(), &p_normal));
  EXPECT_EQ(p_high, greatest);
  EXPECT_EQ(p_normal, least);
  EXPECT_LT(greatest, least) << "this device offers no stream priorities";
}
#endif
