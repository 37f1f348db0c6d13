// The cuda kernels against the cpu: every algorithm on Kronecker graphs of scale 10 to 16 (and the
// small shaped graphs) gives the serial reference's levels, the cpu search's reached and Graph500
// edge counts, and parents the cuda validator accepts; the cuda validator counts the same
// violations as the cpu one on broken trees; every search of one driver (not only its first) is
// right; top-down levels whose pairs do not all fit the eager messages too. Registered for 1, 2 and
// 4 ranks: 2 GPUs must agree with 1 (both with the reference), with the exchanges through peer
// memory (the default where the GPUs can map each other's memory; asked for where ranks share a
// GPU) and through the transport, and with the level loop on the GPU (the default where it can run
// there: one rank, or peer memory) and driven by the host. Skips without a GPU.
#include <gtest/gtest.h>

#include <climits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "comm/collectives.hpp"
#include "comm/peer_window.hpp"
#include "comm/transport.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/reference.hpp"
#include "solvers/bfs/roots.hpp"
#include "solvers/bfs/search.hpp"
#include "solvers/bfs/validate.hpp"
#include "tests/solvers/bfs/graphs.hpp"
#include "tests/solvers/bfs/parent_edge.hpp"

using namespace tessera;
using namespace tessera::bfs;
using tessera::test::context;

namespace {

// One transport per backend for the whole test program (an NCCL communicator is slow to
// make). Never destroyed: statics would outlive MPI and the CUDA context.
comm::Transport& transport(Backend b) {
  static comm::Transport* cuda = comm::make_transport(context(), Backend::cuda, "auto").transport.release();
  static comm::Transport* cpu = comm::make_transport(context(), Backend::cpu, "auto").transport.release();
  return b == Backend::cuda ? *cuda : *cpu;
}

// The same search on the cpu (always through its transport).
SearchOptions on_transport(SearchOptions o) {
  o.exchange = ExchangeMode::transport;
  return o;
}

// Collective: whether some node holds more ranks than GPUs (the test SearchDriver::choose_exchange makes).
bool ranks_share_gpus() {
  auto& ctx = context();
  return comm::allreduce(ctx, ctx.local_size() > ctx.visible_devices() ? 1 : 0, comm::Op::max) != 0;
}

// Where the ranks share a GPU, auto exchanges on the transport, but peer memory, asked for,
// works there too (slowly: every share waits through the other ranks' time slices). The tests
// ask for it so that a host with one GPU covers the peer path as well; elsewhere automatic (on
// GPUs of their own, auto takes peer memory already). Collective on its first call.
ExchangeMode peer_on_a_shared_gpu() {
  static const bool ask = [] {
    auto& ctx = context();
    const bool share = ranks_share_gpus();
    return ctx.size() > 1 && share && comm::PeerWindow::available(ctx);
  }();
  return ask ? ExchangeMode::peer : ExchangeMode::automatic;
}

struct Drivers {
  Drivers(const LocalGraph& g, SearchOptions o)
      : cuda(context(), transport(Backend::cuda), g, Backend::cuda, o),
        cpu(context(), transport(Backend::cpu), g, Backend::cpu, on_transport(o)) {}
  SearchDriver cuda, cpu;
};

void compare_search(Drivers& e, const LocalGraph& whole, std::int64_t root) {
  const BfsTree ref = serial_bfs(whole, root);
  const SearchResult rc = e.cuda.search(root);
  const ValidationReport v = validate(e.cuda, root);
  EXPECT_TRUE(v.ok()) << v.message;
  EXPECT_EQ(e.cuda.global_tree().level, ref.level);
  const SearchResult rh = e.cpu.search(root);
  EXPECT_EQ(rc.reached, rh.reached);
  EXPECT_EQ(rc.input_edges, rh.input_edges);
  EXPECT_EQ(rc.depth, rh.depth);
}

// Every root twice with one driver (a search must not depend on what the one before left).
void compare_searches_twice(Drivers& e, const LocalGraph& whole, const std::vector<std::int64_t>& roots,
                            const std::string& label) {
  for (int repeat = 0; repeat < 2; ++repeat)
    for (std::int64_t root : roots) {
      SCOPED_TRACE(label + " root " + std::to_string(root) + " repeat " + std::to_string(repeat));
      compare_search(e, whole, root);
    }
}

KroneckerSpec kronecker(int scale) {
  KroneckerSpec spec;
  spec.scale = scale;
  return spec;
}

// This rank's part of the distributed graph.
LocalGraph my_part(const KroneckerSpec& spec) {
  auto& ctx = context();
  return build_graph(ctx, KroneckerEdgeSource(spec, ctx.rank(), ctx.size()));
}

}  // namespace

TEST(BfsGpu, EveryKernelMatchesTheCpuOnKroneckerGraphs) {
  TESSERA_REQUIRE_GPU();
  auto& ctx = context();
  for (int scale : {10, 13, 16}) {
    const KroneckerSpec spec = kronecker(scale);
    const LocalGraph whole = build_serial_graph(spec.vertices(), fixtures::kronecker_edges(spec));
    const LocalGraph g = my_part(spec);
    const auto roots = sample_roots(ctx, g, 3, 9);
    // With 2 GPUs: the default exchange (peer memory where possible), and the transport,
    // where eager pairs 0 and 1 send (all, or all but one of) a top-down level's pairs after
    // its counts.
    // The default level loop, and the host's.
    const ExchangeMode transport_only = ExchangeMode::transport, automatic = ExchangeMode::automatic;
    std::vector<SearchOptions> algorithms = {{Algorithm::direction_optimizing, {}},
                                             {Algorithm::direction_optimizing, {0.01, 1e9}},
                                             {Algorithm::top_down, {}},
                                             {Algorithm::bottom_up, {}},
                                             {Algorithm::direction_optimizing, {}, -1, automatic, false},
                                             {Algorithm::top_down, {}, -1, automatic, false},
                                             {Algorithm::bottom_up, {}, -1, automatic, false},
                                             {Algorithm::direction_optimizing, {}, -1, transport_only},
                                             {Algorithm::direction_optimizing, {}, 1, transport_only},
                                             {Algorithm::top_down, {}, 0, transport_only},
                                             {Algorithm::bottom_up, {}, -1, transport_only}};
    if (scale <= 13) algorithms.push_back({Algorithm::edge_parallel, {}});
    if (const ExchangeMode peer = peer_on_a_shared_gpu(); peer == ExchangeMode::peer) {  // ranks on one GPU
      algorithms.push_back({Algorithm::direction_optimizing, {}, -1, peer});
      algorithms.push_back({Algorithm::direction_optimizing, {0.01, 1e9}, -1, peer});
      algorithms.push_back({Algorithm::direction_optimizing, {}, -1, peer, false});
    }
    for (const SearchOptions& options : algorithms) {
      const Algorithm alg = options.algorithm;
      Drivers e(g, options);
      for (std::int64_t root : roots) {
        SCOPED_TRACE("scale " + std::to_string(scale) + " " + std::string(to_string(alg)) + " eager " +
                     std::to_string(options.eager_pairs) + " exchange " + std::string(to_string(options.exchange)) +
                     (e.cuda.exchanges_on_device() ? " (peer memory)" : " (transport)") +
                     (e.cuda.levels_on_device() ? " levels on the GPU" : " levels by the host") + " root " +
                     std::to_string(root));
        compare_search(e, whole, root);
      }
    }
  }
}

TEST(BfsGpu, ShapedGraphsMatchTheReference) {
  TESSERA_REQUIRE_GPU();
  auto& ctx = context();
  for (const auto& tg : fixtures::all_graphs()) {
    const LocalGraph whole = build_serial_graph(tg.n, tg.edges);
    const LocalGraph g = build_graph(ctx, VectorEdgeSource(tg.n, fixtures::my_block(tg.edges, ctx.rank(), ctx.size())));
    for (Algorithm alg : {Algorithm::direction_optimizing, Algorithm::top_down, Algorithm::bottom_up,
                          Algorithm::edge_parallel}) {
      Drivers e(g, SearchOptions{alg, {}});
      for (std::int64_t root : tg.roots) {
        SCOPED_TRACE(tg.name + " " + std::string(to_string(alg)) + " root " + std::to_string(root));
        compare_search(e, whole, root);
      }
    }
  }
}

// One driver, many searches, roots owned by each rank in turn (so every rank is at times a
// non-owner whose level-0 frontier is empty but who receives pairs), repeated so the queues
// meet every parity of swaps. Once, after a search with an odd number of levels, such a
// rank's received vertices went into a stale queue buffer: only a driver's first search
// was right. Each search must match the reference, not just the first. Between searches the
// peer links are woken with stores into the receive areas (or not).
TEST(BfsGpu, EverySearchOfOneDriverMatchesTheReference) {
  TESSERA_REQUIRE_GPU();
  auto& ctx = context();
  const KroneckerSpec spec = kronecker(11);
  // A path keeps one rank's frontier empty for most levels while it still receives pairs.
  const std::vector<fixtures::TestGraph> graphs = {{"kronecker", spec.vertices(), fixtures::kronecker_edges(spec), {}},
                                                   fixtures::path_graph(300)};
  for (const auto& tg : graphs) {
    const std::string& name = tg.name;
    const LocalGraph whole = build_serial_graph(tg.n, tg.edges);
    const LocalGraph g = build_graph(ctx, VectorEdgeSource(tg.n, fixtures::my_block(tg.edges, ctx.rank(), ctx.size())));
    // Per rank, its first two vertices with edges (every rank's block has some in both graphs).
    std::vector<std::int64_t> mine(2, INT64_MAX);
    for (std::int64_t v = 0, k = 0; v < g.count && k < 2; ++v)
      if (g.degree(v) > 0) mine[static_cast<std::size_t>(k++)] = g.begin + v;
    std::vector<std::int64_t> roots;
    for (int pass = 0; pass < 2; ++pass)
      for (int r = 0; r < ctx.size(); ++r) {
        std::int64_t root = r == ctx.rank() ? mine[static_cast<std::size_t>(pass)] : INT64_MAX;
        root = comm::allreduce(ctx, root, comm::Op::min);
        ASSERT_NE(root, INT64_MAX) << name << ": rank " << r << " owns no vertex with edges";
        roots.push_back(root);
      }
    struct Loop {
      bool device_levels, wake_links;
    };
    for (Algorithm alg : {Algorithm::top_down, Algorithm::direction_optimizing})
      for (const Loop loop : {Loop{true, true}, Loop{false, true}, Loop{true, false}}) {
        SearchOptions o{alg, {}, -1, ExchangeMode::automatic, loop.device_levels};
        o.wake_links = loop.wake_links;
        Drivers e(g, o);
        compare_searches_twice(e, whole, roots,
                               name + " " + std::string(to_string(alg)) + (loop.device_levels ? " device" : " host") +
                                   " loop" + (loop.wake_links ? "," : " (links not woken),"));
      }
  }
}

// Delegated hubs (delegates.hpp): with several GPUs exchanging through peer memory and the
// GPU running the level loop, vertices of degree >= hub_degree are expanded by every rank over
// its own part of their rows. Low degrees make most vertices hubs (1: every vertex with an
// edge, so roots are hubs too), and every search of one driver must give the reference's
// levels (a hub bit left from a level or a search before would show as a wrong level).
TEST(BfsGpu, DelegatedHubsGiveTheReferenceLevels) {
  TESSERA_REQUIRE_GPU();
  auto& ctx = context();
  const KroneckerSpec spec = kronecker(13);
  std::vector<fixtures::TestGraph> graphs = {{"kronecker", spec.vertices(), fixtures::kronecker_edges(spec), {}}};
  for (const auto& tg : fixtures::all_graphs()) graphs.push_back(tg);
  for (const auto& tg : graphs) {
    const LocalGraph whole = build_serial_graph(tg.n, tg.edges);
    const LocalGraph g = build_graph(ctx, VectorEdgeSource(tg.n, fixtures::my_block(tg.edges, ctx.rank(), ctx.size())));
    std::vector<std::int64_t> roots = tg.roots;
    if (roots.empty()) roots = sample_roots(ctx, g, 4, 17);
    for (const std::int64_t hub_degree : {1, 3, 48})
      for (Algorithm alg : {Algorithm::top_down, Algorithm::direction_optimizing}) {
        SearchOptions o{alg, {}};
        o.hub_degree = hub_degree;
        o.exchange = peer_on_a_shared_gpu();
        Drivers e(g, o);
        const bool delegating = ctx.size() > 1 && e.cuda.exchanges_on_device() && e.cuda.levels_on_device();
        if (!delegating) {
          EXPECT_EQ(e.cuda.delegated_hubs(), 0) << tg.name;
        } else if (hub_degree == 1) {
          EXPECT_GT(e.cuda.delegated_hubs(), 0) << tg.name;  // every graph has edges
        }
        if (e.cuda.delegated_hubs() > 0) {
          EXPECT_EQ(e.cuda.hub_degree(), hub_degree);
        }
        compare_searches_twice(e, whole, roots,
                               tg.name + " hub degree " + std::to_string(hub_degree) + " (" +
                                   std::to_string(e.cuda.delegated_hubs()) + " hubs) " + std::string(to_string(alg)));
      }
  }
}

TEST(BfsGpu, ValidatorCountsAgreeWithTheCpu) {
  TESSERA_REQUIRE_GPU();
  auto& ctx = context();
  const KroneckerSpec spec = kronecker(12);
  const LocalGraph whole = build_serial_graph(spec.vertices(), fixtures::kronecker_edges(spec));
  const LocalGraph g = my_part(spec);
  const std::int64_t root = sample_roots(ctx, g, 1, 3).front();
  const BfsTree good = serial_bfs(whole, root);
  Drivers e(g, SearchOptions{});
  auto counts = [&](SearchDriver& driver, const BfsTree& t) {
    const auto b = static_cast<std::size_t>(g.begin), c = static_cast<std::size_t>(g.count);
    driver.backend().upload_window(std::span(t.parent).subspan(b, c), std::span(t.level).subspan(b, c));
    return validate(driver, root).violations;
  };
  std::vector<BfsTree> broken(5, good);
  auto rng = tessera::test::rng(5);
  for (int i = 0; i < 40; ++i) {  // many random faults of every kind
    const std::int64_t v = std::uniform_int_distribution<std::int64_t>(0, spec.vertices() - 1)(rng);
    broken[0].parent[v] = good.parent[(v * 7 + 1) % spec.vertices()];
    broken[1].level[v] += 1 + i % 3;
    broken[2].parent[v] = -1;
    broken[3].parent[v] = v;
    broken[4].level[v] = -1;
  }
  broken[0].parent[root] = -1;
  for (const BfsTree& t : broken) {
    const auto a = counts(e.cuda, t), b = counts(e.cpu, t);
    EXPECT_EQ(a, b);
    EXPECT_GT(std::accumulate(a.begin(), a.end(), std::int64_t{0}), 0);
  }
  EXPECT_EQ(counts(e.cuda, good), (std::array<std::int64_t, kChecks>{}));
}

// Ranks with a GPU each that can map each other's memory: the default search exchanges
// through it, and asking for it explicitly works. Ranks that share a GPU take the transport by
// default and peer memory (with the levels on the GPU) when asked. Otherwise (other nodes) the
// explicit request is refused with the reason. One rank has nothing to exchange.
TEST(BfsGpu, PeerExchangeIsTheDefaultWhereTheGpusCanMapEachOther) {
  TESSERA_REQUIRE_GPU();
  auto& ctx = context();
  const LocalGraph g = my_part(kronecker(10));
  std::string why;
  const bool own_gpus = !ranks_share_gpus();
  const bool mappable = ctx.size() > 1 && comm::PeerWindow::available(ctx, &why);
  SearchDriver automatic(ctx, transport(Backend::cuda), g, Backend::cuda, SearchOptions{});
  EXPECT_EQ(automatic.exchanges_on_device(), mappable && own_gpus) << automatic.exchange_reason();
  if (mappable && !own_gpus) {
    EXPECT_NE(automatic.exchange_reason().find("ranks share GPUs"), std::string::npos) << automatic.exchange_reason();
  }
  if (ctx.size() == 1 || mappable) {  // asked for, peer memory even where the ranks share a GPU
    SearchDriver peer(ctx, transport(Backend::cuda), g, Backend::cuda,
                      SearchOptions{Algorithm::direction_optimizing, {}, -1, ExchangeMode::peer});
    EXPECT_EQ(peer.exchanges_on_device(), mappable);
    EXPECT_TRUE(peer.levels_on_device());
  } else {
    EXPECT_THROW(SearchDriver(ctx, transport(Backend::cuda), g, Backend::cuda,
                              SearchOptions{Algorithm::direction_optimizing, {}, -1, ExchangeMode::peer}),
                 InputError)
        << why;
  }
  SearchDriver plain(ctx, transport(Backend::cuda), g, Backend::cuda,
                     SearchOptions{Algorithm::direction_optimizing, {}, -1, ExchangeMode::transport});
  EXPECT_FALSE(plain.exchanges_on_device());
}

// The GPU runs the level loop on one rank and with peer memory, not on the transport or when
// asked not to, and finds what the host-driven loop finds, level for level; a profiled search
// finds the same and, where the GPU ran the loop, reads the GPU's clock at every level it ran,
// in its direction. Where the default search does not use peer memory (the ranks share a GPU,
// where the share's spin-wait would wait through the others' time slices, or the GPUs cannot map
// each other's memory) the host runs the loop on the transport, and there is no device loop, nor
// GPU clocks, to ask for.
TEST(BfsGpu, TheGpuRunsTheLevelLoopWhereNoLevelNeedsTheHost) {
  TESSERA_REQUIRE_GPU();
  auto& ctx = context();
  const LocalGraph g = my_part(kronecker(14));
  const bool share_gpus = ranks_share_gpus();
  SearchDriver device(ctx, transport(Backend::cuda), g, Backend::cuda, SearchOptions{});
  const bool gpu_loop = ctx.size() == 1 || device.exchanges_on_device();
  EXPECT_EQ(device.levels_on_device(), gpu_loop);
  EXPECT_EQ(device.device_loop() != nullptr, gpu_loop);
  if (ctx.size() > 1 && share_gpus) {
    EXPECT_FALSE(device.exchanges_on_device());
    EXPECT_NE(device.exchange_reason().find("ranks share GPUs"), std::string::npos) << device.exchange_reason();
  }
  SearchDriver host(ctx, transport(Backend::cuda), g, Backend::cuda,
                    SearchOptions{Algorithm::direction_optimizing, {}, -1, ExchangeMode::automatic, false});
  EXPECT_FALSE(host.levels_on_device());
  EXPECT_EQ(host.device_loop(), nullptr);
  EXPECT_EQ(host.exchanges_on_device(), device.exchanges_on_device());  // the host's loop over peer memory too
  if (ctx.size() > 1) {
    SearchDriver plain(ctx, transport(Backend::cuda), g, Backend::cuda,
                       SearchOptions{Algorithm::direction_optimizing, {}, -1, ExchangeMode::transport});
    EXPECT_FALSE(plain.levels_on_device());
  }
  int bottom_up_levels = 0;
  for (std::int64_t root : sample_roots(ctx, g, 3, 4)) {
    SCOPED_TRACE("root " + std::to_string(root));
    const SearchResult a = device.search(root);
    const BfsTree ta = device.global_tree();
    device.set_profiling(true);
    const SearchResult b = device.search(root);
    device.set_profiling(false);
    if (DeviceLoop* loop = device.device_loop()) {  // the GPU ran the levels: its clocks
      const std::vector<LevelClock> clocks = loop->level_clocks();
      ASSERT_EQ(static_cast<int>(clocks.size()), b.depth + 1);
      int clocked_bottom_up = 0;
      for (const LevelClock& l : clocks) {
        EXPECT_GT(l.steps + l.shares[0] + l.shares[1], 0.0) << "level " << l.level;
        EXPECT_GE(l.conclude, 0.0);
        EXPECT_EQ(l.shares[0] > 0 || l.shares[1] > 0, device.exchanges_on_device()) << "level " << l.level;
        clocked_bottom_up += l.bottom_up ? 1 : 0;
      }
      EXPECT_EQ(clocks.front().vertices, 1);  // the root
      EXPECT_EQ(clocked_bottom_up, b.bottom_up_levels);
    }
    const SearchResult c = host.search(root);
    EXPECT_EQ(device.global_tree().level, ta.level);
    EXPECT_EQ(host.global_tree().level, ta.level);
    for (const SearchResult& r : {b, c}) {
      EXPECT_EQ(r.depth, a.depth);
      EXPECT_EQ(r.top_down_levels, a.top_down_levels);
      EXPECT_EQ(r.bottom_up_levels, a.bottom_up_levels);
      EXPECT_EQ(r.reached, a.reached);
    }
    EXPECT_GT(a.top_down_levels, 0);
    bottom_up_levels += a.bottom_up_levels;
  }
  EXPECT_GT(bottom_up_levels, 0);  // the giant component of scale 14 goes bottom-up: both branches ran
}

TEST(BfsGpu, TopDownSendsNoPairBackToTheParent) {
  TESSERA_REQUIRE_GPU();
  if (context().size() < 2) GTEST_SKIP() << "needs another rank";
  fixtures::expect_no_pair_back_to_the_parent(context(), transport(Backend::cuda), Backend::cuda);
}
