// Matrix Market and edge-list readers over P ranks (each rank parses its byte range): the
// edges read equal the file's, whichever rank read them; symmetric files mean the same
// graph as their general expansion; comments, blank lines, CRLF and extra columns are
// accepted; mistakes are InputErrors naming the file and the exact line on every rank, also
// when the line lies in another rank's range.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "comm/collectives.hpp"
#include "comm/transport.hpp"
#include "core/error.hpp"
#include "solvers/bfs/edge_source.hpp"
#include "solvers/bfs/graph_file.hpp"
#include "solvers/bfs/reference.hpp"
#include "solvers/bfs/search.hpp"
#include "tests/solvers/bfs/graphs.hpp"

using namespace tessera;
using namespace tessera::bfs;
using tessera::test::context;

namespace {

struct Readers : ::testing::Test {
  void SetUp() override {
    auto& ctx = context();
    std::string d = ctx.rank() == 0 ? (std::filesystem::temp_directory_path() /
                                       ("tessera_bfs_readers_" + std::to_string(getpid())))
                                          .string()
                                    : std::string();
    comm::broadcast(ctx, d);
    dir = d;
    if (ctx.rank() == 0) std::filesystem::create_directories(dir);
    comm::barrier(ctx);
  }
  void TearDown() override {
    comm::barrier(context());
    if (context().rank() == 0) std::filesystem::remove_all(dir);
  }
  // Rank 0 writes the file; every rank gets its path.
  std::filesystem::path file(const std::string& name, const std::string& text) {
    const auto path = dir / name;
    if (context().rank() == 0) std::ofstream(path, std::ios::binary) << text;
    comm::barrier(context());
    return path;
  }
  // Every rank's edges, gathered in rank order (= file order).
  static std::vector<Edge> all_edges(const FileGraph& g) {
    auto& ctx = context();
    std::vector<std::int64_t> flat;
    for (const Edge& e : g.edges) flat.insert(flat.end(), {e.u, e.v});
    std::vector<std::int64_t> counts(ctx.size(), static_cast<std::int64_t>(flat.size()));
    std::vector<std::int64_t> send;
    for (int r = 0; r < ctx.size(); ++r) send.insert(send.end(), flat.begin(), flat.end());
    const auto all = comm::alltoallv<std::int64_t>(ctx, send, counts);
    std::vector<Edge> out;
    for (std::size_t i = 0; i < all.size(); i += 2) out.push_back({all[i], all[i + 1]});
    return out;
  }
  // The message of the InputError every rank must throw.
  template <class F>
  static std::string input_error(F&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no InputError";
    return "";
  }
  std::filesystem::path dir;
};

// A random edge list (with a self-loop and a repeat).
std::vector<Edge> random_edges(std::int64_t n, int m, std::uint64_t seed) {
  return fixtures::random_graph(n, m, seed).edges;
}

std::string matrix_market(std::int64_t n, const std::vector<Edge>& edges, const std::string& field = "pattern",
                          const std::string& symmetry = "general") {
  std::string s = fmt::format("%%MatrixMarket matrix coordinate {} {}\n% a comment\n%\n\n{} {} {}\n", field, symmetry,
                              n, n, edges.size());
  int i = 0;
  for (const Edge& e : edges) {
    s += fmt::format("{} {}", e.u + 1, e.v + 1);
    if (field == "integer") s += fmt::format(" {}", i * 7 - 3);
    if (field == "real") s += fmt::format(" {}e-1", i * 0.25);
    s += "\n";
    if (++i % 37 == 0) s += "\n% interleaved comment\n";
  }
  return s;
}

}  // namespace

TEST_F(Readers, MatrixMarketEdgesInFileOrder) {
  const auto edges = random_edges(500, 700, 11);
  for (const std::string field : {"pattern", "integer", "real"}) {
    const FileGraph g = read_matrix_market(context(), file("g_" + field + ".mtx", matrix_market(500, edges, field)));
    EXPECT_EQ(g.vertices, 500);
    const auto got = all_edges(g);
    ASSERT_EQ(got.size(), edges.size()) << field;
    for (std::size_t i = 0; i < edges.size(); ++i) {
      EXPECT_EQ(got[i].u, edges[i].u);
      EXPECT_EQ(got[i].v, edges[i].v);
    }
  }
}

TEST_F(Readers, SymmetricMeansTheSameGraphAsItsExpansion) {
  auto& ctx = context();
  auto transport = comm::make_transport(ctx, Backend::cpu, "auto").transport;
  // Lower triangle of an undirected graph, and the general file with both directions.
  std::vector<Edge> lower, both;
  for (const Edge& e : random_edges(120, 300, 4)) {
    const Edge l{std::max(e.u, e.v), std::min(e.u, e.v)};
    lower.push_back(l);
    both.push_back(l);
    if (l.u != l.v) both.push_back({l.v, l.u});
  }
  const FileGraph sym = read_matrix_market(ctx, file("sym.mtx", matrix_market(120, lower, "real", "symmetric")));
  const FileGraph gen = read_matrix_market(ctx, file("gen.mtx", matrix_market(120, both, "pattern", "general")));
  const LocalGraph a = build_graph(ctx, VectorEdgeSource(sym.vertices, sym.edges));
  const LocalGraph b = build_graph(ctx, VectorEdgeSource(gen.vertices, gen.edges));
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.input_edges, static_cast<std::int64_t>(lower.size()));
  EXPECT_EQ(b.input_edges, static_cast<std::int64_t>(both.size()));
  SearchDriver ea(ctx, *transport, a, Backend::cpu, {}), eb(ctx, *transport, b, Backend::cpu, {});
  const auto ra = ea.search(7), rb = eb.search(7);
  EXPECT_EQ(ea.global_tree().level, eb.global_tree().level);
  EXPECT_EQ(ra.reached, rb.reached);
}

TEST_F(Readers, EdgeListWithCommentsBlankLinesCrlfAndExtraColumns) {
  const auto edges = random_edges(300, 400, 8);
  std::string text = "# SNAP-style header\n# Nodes: 300\n\n";
  int i = 0;
  for (const Edge& e : edges) {
    text += fmt::format("{}{}{}{}", e.u + 1, i % 3 ? "\t" : "  ", e.v + 1, i % 5 == 0 ? " 1234567\r\n" : "\n");
    if (++i % 50 == 0) text += "\n#\n   \n";
  }
  const FileGraph g = read_edge_list(context(), file("g.txt", text), 1);
  std::int64_t largest = 0;
  for (const Edge& e : edges) largest = std::max({largest, e.u, e.v});
  EXPECT_EQ(g.vertices, largest + 1);
  const auto got = all_edges(g);
  ASSERT_EQ(got.size(), edges.size());
  for (std::size_t k = 0; k < edges.size(); ++k) {
    EXPECT_EQ(got[k].u, edges[k].u);
    EXPECT_EQ(got[k].v, edges[k].v);
  }
  // A declared vertex count beyond the largest id keeps isolated vertices.
  EXPECT_EQ(read_edge_list(context(), file("g2.txt", text), 1, 1000).vertices, 1000);
}

TEST_F(Readers, MistakesNameTheFileAndLine) {
  auto& ctx = context();
  const auto edges = random_edges(50, 300, 3);
  const std::string good = matrix_market(50, edges);
  // The line of entry k (0-based) in `good`.
  auto line_of = [&](std::size_t k) {
    std::size_t at = 0, line = 1, seen = 0;
    bool in_data = false;
    while (at < good.size()) {
      const std::size_t nl = good.find('\n', at);
      const std::string l = good.substr(at, nl - at);
      if (in_data && !l.empty() && l[0] != '%') {
        if (seen++ == k) return line;
      }
      if (!in_data && !l.empty() && l[0] != '%' && std::isdigit(static_cast<unsigned char>(l[0]))) in_data = true;
      at = nl + 1;
      ++line;
    }
    return line;
  };
  auto replace_entry = [&](std::size_t k, const std::string& with) {
    std::string s = good;
    const std::size_t line = line_of(k);
    std::size_t at = 0;
    for (std::size_t l = 1; l < line; ++l) at = s.find('\n', at) + 1;
    s.replace(at, s.find('\n', at) - at, with);
    return s;
  };
  auto expect = [&](const std::string& name, const std::string& text, const std::string& needle) {
    const auto path = file(name, text);
    const std::string msg = input_error([&] { read_matrix_market(ctx, path); });
    EXPECT_NE(msg.find(path.string() + needle), std::string::npos) << "message: " << msg;
    // Every rank reports the same message.
    std::string rank0 = msg;
    comm::broadcast(ctx, rank0);
    EXPECT_EQ(msg, rank0);
  };
  expect("h1.mtx", "%%MatrixMarket matrix array real general\n2 2\n", ":1: Matrix Market format 'array'");
  expect("h2.mtx", "%MatrixMarket matrix coordinate real general\n", ":1: not a Matrix Market file");
  expect("h3.mtx", "%%MatrixMarket matrix coordinate pattern\n", ":1: malformed Matrix Market header");
  expect("h4.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 0\n", ":1: Matrix Market field 'complex'");
  expect("s1.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n\n5 5\n1 2\n", ":4: malformed size line");
  expect("s2.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 6 1\n1 2\n", ":2: the matrix is 5 x 6");
  // Entries deep in the file (read by the last ranks when P > 1).
  const std::size_t k = 250;
  expect("r1.mtx", replace_entry(k, "51 3"), ":" + std::to_string(line_of(k)) + ": row index 51 is outside [1, 50]");
  expect("r2.mtx", replace_entry(k, "3 0"), ":" + std::to_string(line_of(k)) + ": column index 0 is outside [1, 50]");
  expect("r3.mtx", replace_entry(k, "3 x4"), ":" + std::to_string(line_of(k)) + ": malformed entry");
  expect("r4.mtx", replace_entry(k, "3 4 5"), ":" + std::to_string(line_of(k)) + ": expected 2 fields");
  // Wrong entry counts: one more than announced (named at the extra line), or fewer.
  const std::string m = std::to_string(edges.size());
  const std::string size_line = "50 50 " + m;
  std::string extra = good;
  extra.replace(extra.find(size_line), size_line.size(), "50 50 " + std::to_string(edges.size() - 1));
  expect("c1.mtx", extra,
         ":" + std::to_string(line_of(edges.size() - 1)) + ": more entries than the " +
             std::to_string(edges.size() - 1) + " announced on line 5");
  std::string fewer = good;
  fewer.replace(fewer.find(size_line), size_line.size(), "50 50 " + std::to_string(edges.size() + 1));
  expect("c2.mtx", fewer,
         ": the file ends after " + m + " entries, but line 5 announces " + std::to_string(edges.size() + 1));

  const auto list = file("e1.txt", "# x\n0 1\n1 2\n\n2 -3\n");
  EXPECT_NE(input_error([&] { read_edge_list(ctx, list); }).find(list.string() + ":5: vertex id -3 is below"),
            std::string::npos);
  const auto list2 = file("e2.txt", "0 1\n1 2\n7\n");
  EXPECT_NE(input_error([&] { read_edge_list(ctx, list2); }).find(list2.string() + ":3: expected an edge"),
            std::string::npos);
  const auto list3 = file("e3.txt", "0 1\n1 9\n");
  EXPECT_NE(input_error([&] { read_edge_list(ctx, list3, 0, 5); }).find(list3.string() + ":2: vertex id 9 is outside"),
            std::string::npos);
  const auto missing = dir / "missing.mtx";
  EXPECT_NE(input_error([&] { read_matrix_market(ctx, missing); }).find("cannot open"), std::string::npos);
}
