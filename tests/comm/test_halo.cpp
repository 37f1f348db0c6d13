// HaloExchange on host arrays through the host transport, for every rank grid the rank count
// allows. Every element of every array is checked after each exchange (tests/comm/halo_check.hpp).
#include <gtest/gtest.h>

#include <span>
#include <stdexcept>
#include <string>

#include "comm/collectives.hpp"
#include "comm/halo.hpp"
#include "comm/transport.hpp"
#include "tests/comm/halo_check.hpp"
#include "tests/support/mpi_test.hpp"

namespace tessera {
namespace {

using test::halo::Case;
using test::halo::HostFields;

std::unique_ptr<comm::Transport> host_transport() {
  auto choice = comm::make_transport(test::context(), Backend::cpu, "auto");
  EXPECT_EQ(choice.transport->kind(), comm::TransportKind::host);
  return std::move(choice.transport);
}

void run_cases(const std::vector<Case>& cases, int rounds = 1) {
  auto transport = host_transport();
  for (const Case& c : cases)
    test::halo::run_case(test::context(), *transport, c, rounds,
                         [](comm::HaloExchange& halo, HostFields& f, int) { halo.exchange(f.pointers()); });
}

TEST(Halo, FacesEveryRankGridPeriodicityAndGhostWidth) {
  run_cases(test::halo::shape_cases(test::context().size(), false));
}

TEST(Halo, CornersEveryRankGridPeriodicityAndGhostWidth) {
  run_cases(test::halo::shape_cases(test::context().size(), true));
}

TEST(Halo, PaddedPitchAndRowsSeveralFields) { run_cases(test::halo::padding_cases(test::context().size())); }

TEST(Halo, FillMasksSkipUnwantedLayers) { run_cases(test::halo::fill_mask_cases(test::context().size())); }

TEST(Halo, EveryElementSize) { run_cases(test::halo::elem_size_cases()); }

TEST(Halo, ManyFieldsInOneMessage) {
  std::vector<Case> cases;
  for (bool corners : {false, true}) {
    Case c;
    c.fields = 40;  // more than one device launch holds; one message per face still
    c.elem_size = 8;
    c.options.corners = corners;
    cases.push_back(c);
  }
  run_cases(cases);
}

// The same HaloExchange reused: fresh values and fresh poison each round, so a ghost left
// over from an earlier round (or a stale buffer) is caught.
TEST(Halo, RepeatedExchangesReuseBuffers) {
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

// begin() packs and starts; work runs (a collective; in faces mode also rewriting the
// interior with other values); finish() must deliver what was packed at begin(). Corners mode
// packs phases y and z in finish(), so there the work between only reads.
TEST(Halo, BeginFinishSplitWithWorkBetween) {
  auto& ctx = test::context();
  auto transport = host_transport();
  for (bool corners : {false, true}) {
    Case c;
    c.ghost = 2;
    c.global = {9, 10, 11};
    c.periodic = {true, true, false};
    c.options.corners = corners;
    SCOPED_TRACE(c.describe());
    const comm::CartDecomposition d(ctx, c.global, c.dims, c.periodic);
    const comm::HaloLayout l = test::halo::layout_for(d, c);
    comm::HaloExchange halo(d, *transport, l, c.fields, c.options);
    HostFields f = test::halo::make_fields(d, l, c.fields, 0);
    for (int round = 0; round < 3; ++round) {
      if (round > 0) test::halo::fill_fields(d, l, round, f);
      const auto ptrs = f.pointers();
      halo.begin(ptrs);
      const long long sum = comm::allreduce(ctx, static_cast<long long>(ctx.rank()));
      EXPECT_EQ(sum, static_cast<long long>(ctx.size()) * (ctx.size() - 1) / 2);
      const int interior_round = corners ? round : round + 100;
      if (!corners) test::halo::write_interior(d, l, interior_round, f);
      halo.finish();
      std::string report;
      const auto bad = test::halo::check_fields(d, l, c.options, round, f, report, interior_round);
      EXPECT_EQ(bad, 0) << "round " << round << report;
    }
  }
}

// Validation: every rank throws std::invalid_argument, also when only one rank's layout is bad
// (nothing hangs waiting for that rank).
std::string construct_error(const Case& c, const std::function<void(comm::HaloLayout&)>& spoil, int fields = 1) {
  auto& ctx = test::context();
  auto transport = host_transport();
  const comm::CartDecomposition d(ctx, c.global, c.dims, c.periodic);
  comm::HaloLayout l = test::halo::layout_for(d, c);
  spoil(l);
  try {
    comm::HaloExchange halo(d, *transport, l, fields);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& what, const std::string& part) {
  EXPECT_NE(what, "") << "expected std::invalid_argument mentioning '" << part << "'";
  EXPECT_NE(what.find(part), std::string::npos) << what;
}

TEST(Halo, RejectsBadLayouts) {
  const Case c;
  const int g = c.ghost;
  expect_error(construct_error(c, [&](comm::HaloLayout& l) { l.pitch = l.n[0] + 2 * g - 1; }), "pitch");
  expect_error(construct_error(c, [&](comm::HaloLayout& l) { l.rows = l.n[1] + 2 * g - 1; }), "rows");
  expect_error(construct_error(c, [](comm::HaloLayout& l) { l.elem_size = 3; }), "element size");
  expect_error(construct_error(c, [](comm::HaloLayout& l) { l.ghost = 0; }), "ghost width");
  expect_error(construct_error(c, [](comm::HaloLayout& l) { l.n[2] += 1; }), "subdomain");
  expect_error(construct_error(c, [](comm::HaloLayout&) {}, 0), "fields");
}

TEST(Halo, RejectsPadOnOneRankOnly) {
  auto& ctx = test::context();
  // Only rank 0 spoils its pitch: every rank must still throw, with rank 0's message.
  expect_error(construct_error(Case{}, [&](comm::HaloLayout& l) {
                 if (ctx.rank() == 0) l.pitch = 1;
               }),
               "pitch");
}

TEST(Halo, RejectsGhostWiderThanOneRanksInterior) {
  auto& ctx = test::context();
  const int p = ctx.size();
  Case c;
  // Along x, 2p - 1 cells over p ranks: every rank has 2 cells except the last, which has 1.
  c.global = {2 * p - 1, 4, 4};
  c.dims = {p, 1, 1};
  c.ghost = 2;
  expect_error(construct_error(c, [](comm::HaloLayout&) {}), "ghost width 2 exceeds");
}

TEST(Halo, RejectsMisuse) {
  auto& ctx = test::context();
  auto transport = host_transport();
  const Case c;
  const comm::CartDecomposition d(ctx, c.global, c.dims, c.periodic);
  const comm::HaloLayout l = test::halo::layout_for(d, c);
  comm::HaloExchange halo(d, *transport, l, 2);
  HostFields f = test::halo::make_fields(d, l, 2, 0);
  auto ptrs = f.pointers();
  EXPECT_THROW(halo.finish(), std::logic_error);
  EXPECT_THROW(halo.begin(std::span<void* const>(ptrs.data(), 1)), std::invalid_argument);
  std::vector<void*> with_null{ptrs[0], nullptr};
  EXPECT_THROW(halo.begin(with_null), std::invalid_argument);
  halo.begin(ptrs);
  EXPECT_THROW(halo.begin(ptrs), std::logic_error);
  halo.finish();
  std::string report;
  EXPECT_EQ(test::halo::check_fields(d, l, c.options, 0, f, report), 0) << report;
}

}  // namespace
}  // namespace tessera
