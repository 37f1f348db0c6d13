// HaloExchange on device arrays through every device transport (staged; mpi where MPI is
// CUDA-aware; nccl where built and every rank has its own GPU), with the same cases and the
// same every-element check as the host test (tests/comm/halo_check.hpp): host arrays are
// filled and poisoned, uploaded, exchanged on the device, downloaded and checked. A transport
// this job cannot use is skipped with make_transport's reason; without a GPU every test skips.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/halo.hpp"
#include "comm/transport.hpp"
#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "core/stream.hpp"
#include "tests/comm/halo_check.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera {
namespace {

using test::halo::Case;
using test::halo::HostFields;

void device_synchronize() {
#if defined(TESSERA_HAVE_CUDA)
  TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
#endif
}

// Device copies of a rank's host arrays.
struct DeviceFields {
  std::vector<DeviceBuffer<unsigned char>> buffers;
  std::vector<void*> pointers;

  explicit DeviceFields(const HostFields& f) {
    for (const auto& a : f.data) {
      buffers.emplace_back(a.size());
      pointers.push_back(buffers.back().data());
    }
  }
  void upload(const HostFields& f) {
    for (std::size_t i = 0; i < buffers.size(); ++i) buffers[i].upload(f.data[i]);
    // A pageable upload may still be in flight when cudaMemcpy returns; the exchange runs on
    // non-blocking streams that do not wait for it.
    device_synchronize();
  }
  void download(HostFields& f) const {
    for (std::size_t i = 0; i < buffers.size(); ++i) buffers[i].download(f.data[i]);
  }
};

class HaloGpu : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    TESSERA_REQUIRE_GPU();
    try {
      choice_ = comm::make_transport(test::context(), Backend::cuda, GetParam());
    } catch (const InputError& e) {
      // make_transport decides collectively, so every rank skips together.
      GTEST_SKIP() << "transport '" << GetParam() << "' is not available in this job: " << e.what();
    }
    ASSERT_NE(choice_.transport, nullptr);
    ASSERT_EQ(choice_.transport->memory(), Memory::device);
    if (test::context().is_root())
      std::printf("[ transport ] %s: %s\n", GetParam().c_str(), choice_.reason.c_str());
  }

  comm::Transport& transport() { return *choice_.transport; }

  // Uploads, exchanges on `stream` (begin and finish on the same one), downloads.
  void run_cases(const std::vector<Case>& cases, int rounds = 1) {
    Stream stream;
    for (const Case& c : cases) {
      std::optional<DeviceFields> dev;
      test::halo::run_case(test::context(), transport(), c, rounds,
                           [&](comm::HaloExchange& halo, HostFields& f, int) {
                             if (!dev) dev.emplace(f);
                             dev->upload(f);
                             halo.exchange(dev->pointers, stream);
                             stream.synchronize();
                             dev->download(f);
                           });
    }
  }

  comm::TransportChoice choice_;
};

TEST_P(HaloGpu, FacesEveryRankGridPeriodicityAndGhostWidth) {
  run_cases(test::halo::shape_cases(test::context().size(), false));
}

TEST_P(HaloGpu, CornersEveryRankGridPeriodicityAndGhostWidth) {
  run_cases(test::halo::shape_cases(test::context().size(), true));
}

TEST_P(HaloGpu, PaddedPitchAndRowsSeveralFields) { run_cases(test::halo::padding_cases(test::context().size())); }

TEST_P(HaloGpu, FillMasksSkipUnwantedLayers) { run_cases(test::halo::fill_mask_cases(test::context().size())); }

TEST_P(HaloGpu, EveryElementSize) { run_cases(test::halo::elem_size_cases()); }

// 40 fields: more than one pack launch holds (32), still one message per face.
TEST_P(HaloGpu, ManyFieldsInOneMessage) {
  std::vector<Case> cases;
  for (bool corners : {false, true}) {
    Case c;
    c.fields = 40;
    c.elem_size = 8;
    c.options.corners = corners;
    cases.push_back(c);
  }
  run_cases(cases);
}

TEST_P(HaloGpu, RepeatedExchangesReuseBuffers) {
  std::vector<Case> cases;
  for (const auto& dims : test::halo::rank_grids(test::context().size()))
    for (bool corners : {false, true}) {
      Case c;
      c.dims = dims;
      c.periodic = {true, false, true};
      c.ghost = 2;
      c.global = {9, 10, 11};
      c.options.corners = corners;
      cases.push_back(c);
    }
  run_cases(cases, 4);
}

// begin() on one stream, work queued behind it (faces mode: the whole array rewritten with new
// interior values and fresh poison, ordered after the pack), a host collective, finish() on a
// second stream: the ghosts must hold what was packed at begin(), the interior the new values.
// Also the default stream for both.
TEST_P(HaloGpu, BeginFinishSplitAcrossStreamsWithWorkBetween) {
  auto& ctx = test::context();
  Stream compute, other;
  for (bool corners : {false, true})
    for (bool default_stream : {false, true}) {
      Case c;
      c.ghost = 2;
      c.global = {9, 10, 11};
      c.periodic = {true, true, false};
      c.options.corners = corners;
      SCOPED_TRACE(c.describe() + (default_stream ? " default stream" : " two streams"));
      const stream_t s_begin = default_stream ? nullptr : compute.get();
      const stream_t s_finish = default_stream ? nullptr : other.get();
      const comm::CartDecomposition d(ctx, c.global, c.dims, c.periodic);
      const comm::HaloLayout l = test::halo::layout_for(d, c);
      comm::HaloExchange halo(d, transport(), l, c.fields, c.options);
      HostFields f = test::halo::make_fields(d, l, c.fields, 0);
      DeviceFields dev(f);
      for (int round = 0; round < 3; ++round) {
        test::halo::fill_fields(d, l, round, f);
        dev.upload(f);
        const int interior_round = corners ? round : round + 100;
        HostFields rewritten = test::halo::make_fields(d, l, c.fields, interior_round);
        halo.begin(dev.pointers, s_begin);
        if (!corners)
          for (std::size_t i = 0; i < dev.buffers.size(); ++i)
            copy_bytes_async(dev.pointers[i], rewritten.data[i].data(), rewritten.data[i].size(), s_begin);
        const long long sum = comm::allreduce(ctx, static_cast<long long>(ctx.rank()));
        EXPECT_EQ(sum, static_cast<long long>(ctx.size()) * (ctx.size() - 1) / 2);
        halo.finish(s_finish);
        device_synchronize();
        dev.download(f);
        std::string report;
        const auto bad = test::halo::check_fields(d, l, c.options, round, f, report, interior_round);
        EXPECT_EQ(bad, 0) << "round " << round << report;
      }
    }
}

TEST_P(HaloGpu, RejectsMisalignedDevicePointers) {
  auto& ctx = test::context();
  const Case c;
  const comm::CartDecomposition d(ctx, c.global, c.dims, c.periodic);
  const comm::HaloLayout l = test::halo::layout_for(d, c);
  comm::HaloExchange halo(d, transport(), l, 1);
  DeviceBuffer<unsigned char> buf(static_cast<std::size_t>(l.elements()) * l.elem_size + 16);
  void* odd = buf.data() + 2;  // elements are 4 bytes
  EXPECT_THROW(halo.begin(std::span<void* const>(&odd, 1)), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Comm, HaloGpu, ::testing::Values("staged", "mpi", "nccl"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace tessera
