#pragma once
// Shared by test_halo.cpp (host arrays) and test_halo_gpu.cpp (device arrays): the cases, the
// value every interior cell holds (a hash of its GLOBAL index, field and round), and a checker
// that visits EVERY element of every array after an exchange:
//   interior                          -> still its own value
//   padding (pitch/rows beyond n+2g)  -> still poison
//   ghost cell                        -> the value of the (periodically wrapped) global cell if
//                                        the exchange fills it, else still poison.
// A ghost cell lies in the ghost layers of one axis (a face ghost) or of several (an edge or
// corner ghost). A layer (axis, side) is active when options.fill asks for it and a neighbour
// exists (periodic or not a domain face). Faces mode fills face ghosts of active layers; corners
// mode fills every ghost cell all of whose layers are active.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "comm/cart.hpp"
#include "comm/halo.hpp"

namespace tessera::test::halo {

// Every unwritten byte holds its rank's poison: distinct per rank, so a ghost that receives a
// neighbour's unwritten ghost is caught too. Cell values never equal any poison (byte 0 is
// never 0 and never in 0xA0..0xAF).
inline unsigned char poison_byte(int rank) { return static_cast<unsigned char>(0xA0 | (rank & 0x0F)); }

struct Case {
  comm::Index3 global{7, 5, 6};
  std::array<int, 3> dims{0, 0, 0};
  std::array<bool, 3> periodic{true, true, true};
  int ghost = 1;
  int fields = 2;
  std::size_t elem_size = 4;
  int pitch_pad = 0, rows_pad = 0;  // extra elements per row / rows per plane
  comm::HaloOptions options{};

  std::string describe() const {
    std::string fill;
    for (int a = 0; a < 3; ++a) fill += fmt::format("{}{}", options.fill[a][0] ? '-' : '.', options.fill[a][1] ? '+' : '.');
    return fmt::format("global {}x{}x{} dims {}x{}x{} periodic {}{}{} ghost {} fields {} elem {} pad {}/{} {} fill {}",
                       global[0], global[1], global[2], dims[0], dims[1], dims[2], int(periodic[0]), int(periodic[1]),
                       int(periodic[2]), ghost, fields, elem_size, pitch_pad, rows_pad,
                       options.corners ? "corners" : "faces", fill);
  }
};

// Every rank grid dx * dy * dz == ranks (for 4: 4x1x1, 2x2x1, 1x2x2, ...).
inline std::vector<std::array<int, 3>> rank_grids(int ranks) {
  std::vector<std::array<int, 3>> out;
  for (int x = 1; x <= ranks; ++x)
    for (int y = 1; y <= ranks; ++y)
      if (ranks % (x * y) == 0) out.push_back({x, y, ranks / (x * y)});
  return out;
}

inline std::uint64_t mix(std::uint64_t h) {  // splitmix64 finaliser
  h += 0x9E3779B97F4A7C15ull;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

// The bytes of global cell `g` of `field` in exchange `round`: random-looking, never zero and
// never poison, different per round so stale ghosts are caught.
inline void cell_value(const comm::Index3& g, int field, int round, std::size_t elem_size, unsigned char* out) {
  std::uint64_t h = mix(static_cast<std::uint64_t>(g[0]));
  h = mix(h ^ static_cast<std::uint64_t>(g[1]));
  h = mix(h ^ static_cast<std::uint64_t>(g[2]));
  h = mix(h ^ (static_cast<std::uint64_t>(field) << 32 | static_cast<std::uint32_t>(round)));
  for (std::size_t b = 0; b < elem_size; b += 8) {
    const std::uint64_t word = mix(h + b);
    std::memcpy(out + b, &word, std::min<std::size_t>(8, elem_size - b));
  }
  if (out[0] == 0 || (out[0] & 0xF0) == 0xA0) out[0] = 0x3C;
}

inline comm::HaloLayout layout_for(const comm::CartDecomposition& d, const Case& c) {
  comm::HaloLayout l;
  l.n = d.local_size();
  l.ghost = c.ghost;
  l.elem_size = c.elem_size;
  l.pitch = c.pitch_pad ? l.n[0] + 2 * c.ghost + c.pitch_pad : 0;
  l.rows = c.rows_pad ? l.n[1] + 2 * c.ghost + c.rows_pad : 0;
  return l;
}

// One rank's arrays in host memory.
struct HostFields {
  std::vector<std::vector<unsigned char>> data;
  std::vector<void*> pointers() {
    std::vector<void*> p;
    for (auto& d : data) p.push_back(d.data());
    return p;
  }
};

// Writes the interior values of `round`, leaving ghosts and padding alone.
inline void write_interior(const comm::CartDecomposition& d, const comm::HaloLayout& l, int round, HostFields& f) {
  const auto es = l.elem_size;
  for (std::size_t field = 0; field < f.data.size(); ++field) {
    auto& a = f.data[field];
    for (std::int64_t k = 0; k < l.n[2]; ++k)
      for (std::int64_t j = 0; j < l.n[1]; ++j)
        for (std::int64_t i = 0; i < l.n[0]; ++i) {
          const comm::Index3 g{d.local_offset()[0] + i, d.local_offset()[1] + j, d.local_offset()[2] + k};
          cell_value(g, static_cast<int>(field), round, es, a.data() + l.index(i, j, k) * es);
        }
  }
}

// Poisons every element, then writes the interior values of `round`.
inline void fill_fields(const comm::CartDecomposition& d, const comm::HaloLayout& l, int round, HostFields& f) {
  for (auto& a : f.data) a.assign(static_cast<std::size_t>(l.elements()) * l.elem_size, poison_byte(d.context().rank()));
  write_interior(d, l, round, f);
}

inline HostFields make_fields(const comm::CartDecomposition& d, const comm::HaloLayout& l, int fields, int round) {
  HostFields f;
  f.data.resize(static_cast<std::size_t>(fields));
  fill_fields(d, l, round, f);
  return f;
}

inline std::string hex(const unsigned char* p, std::size_t n) {
  std::string s;
  for (std::size_t b = 0; b < n; ++b) s += fmt::format("{:02x}", p[b]);
  return s;
}

// Checks every element of every field (see the top of this file) against the values of
// `round`; the interior against `interior_round` when given (work that rewrote the interior
// while the exchange was in flight). Returns the number of wrong elements; `report` gets the
// first few, with their positions.
inline std::int64_t check_fields(const comm::CartDecomposition& d, const comm::HaloLayout& l,
                                 const comm::HaloOptions& opt, int round, const HostFields& f, std::string& report,
                                 int interior_round = -1) {
  if (interior_round < 0) interior_round = round;
  const int g = l.ghost;
  const auto es = l.elem_size;
  const auto& n = l.n;
  bool active[3][2];
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s) active[a][s] = opt.fill[a][s] && d.neighbor(a, s) != MPI_PROC_NULL;

  std::vector<unsigned char> want(es);
  const std::vector<unsigned char> poison(es, poison_byte(d.context().rank()));
  std::int64_t bad = 0;
  for (std::size_t field = 0; field < f.data.size(); ++field) {
    const auto& a = f.data[field];
    for (std::int64_t kk = 0; kk < n[2] + 2 * g; ++kk)
      for (std::int64_t jj = 0; jj < l.plane_rows(); ++jj)
        for (std::int64_t ii = 0; ii < l.row_pitch(); ++ii) {
          const std::int64_t idx[3] = {ii - g, jj - g, kk - g};  // interior coordinates
          const char* what = "interior";
          bool padding = false, filled = true;
          int ghost_axes = 0;
          for (int ax = 0; ax < 3; ++ax) {
            if (idx[ax] >= n[ax] + g) padding = true;
            const int side = idx[ax] < 0 ? 0 : (idx[ax] >= n[ax] ? 1 : -1);
            if (side < 0) continue;
            ++ghost_axes;
            filled = filled && active[ax][side];
          }
          if (ghost_axes > 0) {
            what = ghost_axes == 1 ? "face ghost" : (ghost_axes == 2 ? "edge ghost" : "corner ghost");
            if (!opt.corners && ghost_axes > 1) filled = false;
          }
          const unsigned char* expect = poison.data();
          if (padding) {
            what = "padding";
          } else if (ghost_axes == 0 || filled) {
            comm::Index3 gi{};
            for (int ax = 0; ax < 3; ++ax) {
              gi[ax] = d.local_offset()[ax] + idx[ax];
              if (d.periodic()[ax]) gi[ax] = (gi[ax] % d.global()[ax] + d.global()[ax]) % d.global()[ax];
            }
            cell_value(gi, static_cast<int>(field), ghost_axes == 0 ? interior_round : round, es, want.data());
            expect = want.data();
          }
          const unsigned char* got = a.data() + ((kk * l.plane_rows() + jj) * l.row_pitch() + ii) * es;
          if (std::memcmp(got, expect, es) != 0) {
            if (++bad <= 8)
              report += fmt::format("\n  rank {} field {} cell ({},{},{}) {}: want {}{} got {}", d.context().rank(),
                                    field, idx[0], idx[1], idx[2], what, hex(expect, es),
                                    expect == poison.data() ? " (poison)" : "", hex(got, es));
          }
        }
  }
  return bad;
}

// Runs `rounds` exchanges of case `c` through one HaloExchange (so buffers are reused), with
// fresh values each round, and checks every element after each. `exchange(halo, fields, round)`
// moves the host arrays through the exchange (directly, or via device copies). Assertions are
// non-fatal so every rank takes the same path through the collective calls.
template <class ExchangeFn>
void run_case(comm::Context& ctx, comm::Transport& transport, const Case& c, int rounds, ExchangeFn&& exchange) {
  SCOPED_TRACE(c.describe());
  const comm::CartDecomposition d(ctx, c.global, c.dims, c.periodic);
  const comm::HaloLayout l = layout_for(d, c);
  comm::HaloExchange halo(d, transport, l, c.fields, c.options);
  HostFields f = make_fields(d, l, c.fields, 0);
  for (int round = 0; round < rounds; ++round) {
    if (round > 0) fill_fields(d, l, round, f);
    exchange(halo, f, round);
    std::string report;
    const std::int64_t bad = check_fields(d, l, c.options, round, f, report);
    EXPECT_EQ(bad, 0) << "round " << round << ", " << bad << " wrong element(s) on rank " << ctx.rank() << report;
  }
}

// The case lists both tests run.
inline std::array<std::array<bool, 3>, 8> all_periodicities() {
  std::array<std::array<bool, 3>, 8> out{};
  for (int m = 0; m < 8; ++m) out[m] = {bool(m & 1), bool(m & 2), bool(m & 4)};
  return out;
}

// Every rank grid the rank count allows x every periodic/non-periodic mix x ghost 1 and 2, on
// uneven global sizes, two fields, element sizes 4 and 8 alternating.
inline std::vector<Case> shape_cases(int ranks, bool corners) {
  std::vector<Case> out;
  for (const auto& dims : rank_grids(ranks))
    for (const auto& periodic : all_periodicities())
      for (int ghost : {1, 2}) {
        Case c;
        c.global = ghost == 1 ? comm::Index3{7, 5, 6} : comm::Index3{9, 10, 11};
        c.dims = dims;
        c.periodic = periodic;
        c.ghost = ghost;
        c.elem_size = (out.size() % 2) ? 8 : 4;
        c.options.corners = corners;
        out.push_back(c);
      }
  return out;
}

// Padded pitch and rows, three fields of 8 bytes, ghost 2, a periodic mix, both modes.
inline std::vector<Case> padding_cases(int ranks) {
  std::vector<Case> out;
  for (const auto& dims : rank_grids(ranks))
    for (bool corners : {false, true}) {
      Case c;
      c.global = {9, 10, 11};
      c.dims = dims;
      c.periodic = {true, false, true};
      c.ghost = 2;
      c.fields = 3;
      c.elem_size = 8;
      c.pitch_pad = 3;
      c.rows_pad = 2;
      c.options.corners = corners;
      out.push_back(c);
    }
  return out;
}

// Partial fill masks: only the high x layer; and high x, no y, low z.
inline std::vector<Case> fill_mask_cases(int ranks) {
  std::vector<Case> out;
  using Fill = std::array<std::array<bool, 2>, 3>;
  const Fill masks[] = {Fill{{{false, true}, {true, true}, {true, true}}},
                        Fill{{{false, true}, {false, false}, {true, false}}}};
  for (const auto& dims : rank_grids(ranks))
    for (const Fill& fill : masks)
      for (bool corners : {false, true})
        for (const auto& periodic : {std::array<bool, 3>{true, true, true}, std::array<bool, 3>{false, true, false}}) {
          Case c;
          c.dims = dims;
          c.periodic = periodic;
          c.ghost = corners ? 2 : 1;
          c.global = c.ghost == 1 ? comm::Index3{7, 5, 6} : comm::Index3{9, 10, 11};
          c.options.fill = fill;
          c.options.corners = corners;
          out.push_back(c);
        }
  return out;
}

// Every supported element size, on a grid MPI_Dims_create picks.
inline std::vector<Case> elem_size_cases() {
  std::vector<Case> out;
  for (std::size_t es : {1, 2, 4, 8, 16})
    for (bool corners : {false, true}) {
      Case c;
      c.global = {9, 10, 11};
      c.periodic = {true, false, true};
      c.elem_size = es;
      c.fields = 2;
      c.options.corners = corners;
      out.push_back(c);
    }
  return out;
}

}  // namespace tessera::test::halo
