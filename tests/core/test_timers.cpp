// Timers: the host timer follows the wall clock; the device timer measures work on a stream.
#include <gtest/gtest.h>

#include <thread>

#include "core/backend.hpp"
#include "core/buffer.hpp"
#include "core/error.hpp"
#include "core/stream.hpp"
#include "core/timer.hpp"

using namespace tessera;

TEST(HostTimer, MeasuresSleepAndResets) {
  HostTimer t;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const double s = t.seconds();
  EXPECT_GE(s, 0.029);
  EXPECT_LT(s, 5.0);
  t.reset();
  EXPECT_LT(t.seconds(), s);
}

TEST(DeviceTimer, MeasuresACopyOnAStream) {
  if (!(cuda_compiled() && visible_device_count() > 0)) GTEST_SKIP() << "no CUDA device visible (gpu test)";
  const std::size_t n = std::size_t{1} << 28;  // 1 GiB of floats each way
  DeviceBuffer<float> a(n), b(n);
  fill_device_bytes(a.data(), 0x3F, a.bytes());
  Stream s;
  DeviceTimer t;
  t.start(s);
  copy_bytes_async(b.data(), a.data(), a.bytes(), s);
  t.stop(s);
  const double sec = t.seconds();
  // Between 100 GB/s and 20 TB/s counting read + write: a real copy, timed on the device.
  EXPECT_GT(sec, 2.0 * a.bytes() / 20e12);
  EXPECT_LT(sec, 2.0 * a.bytes() / 100e9);
}
