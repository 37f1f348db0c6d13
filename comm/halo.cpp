#include "comm/halo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/errors.hpp"
#include "comm/halo_pack.hpp"
#include "core/buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/profile.hpp"

namespace tessera::comm {
namespace {

constexpr const char* kAxisName[3] = {"x", "y", "z"};
// Halo messages carry tags kTagBase + 2 * axis + direction (0: travelling towards -axis, sent
// from the low face; 1: towards +axis). A receiver's low ghost is filled by its low neighbour's
// high face, so the pair still matches when both neighbours are one rank (two ranks on a
// periodic axis) or this rank itself (one rank on a periodic axis).
constexpr int kTagBase = 0x4A10;
// Message offsets in the pack buffers: aligned for any element size and vector loads.
constexpr std::size_t kAlign = 256;

int halo_tag(int axis, int direction) { return kTagBase + 2 * axis + direction; }

// This rank's own layout problems, "" when it is usable. Checked on every rank, then agreed.
std::string layout_problem(const CartDecomposition& d, const HaloLayout& l, int fields) {
  const auto& n = l.n;
  const int g = l.ghost;
  if (fields < 1) return fmt::format("HaloExchange: {} fields; at least one is needed", fields);
  if (!detail::supported_elem_size(l.elem_size))
    return fmt::format("HaloExchange: element size {} bytes is not supported (1, 2, 4, 8 or 16)", l.elem_size);
  if (g < 1) return fmt::format("HaloExchange: ghost width {} (must be at least 1)", g);
  if (n != d.local_size())
    return fmt::format("HaloExchange: layout interior {}x{}x{} differs from this rank's subdomain {}x{}x{}", n[0],
                       n[1], n[2], d.local_size()[0], d.local_size()[1], d.local_size()[2]);
  for (int a = 0; a < 3; ++a)
    if (g > n[a])
      return fmt::format(
          "HaloExchange: ghost width {} exceeds the {} interior cell(s) along {} of this rank (global {}x{}x{} "
          "over {}x{}x{} ranks): a ghost layer must come from one neighbour's interior; use a narrower ghost or "
          "fewer ranks along {}",
          g, n[a], kAxisName[a], d.global()[0], d.global()[1], d.global()[2], d.dims()[0],
          d.dims()[1], d.dims()[2], kAxisName[a]);
  if (l.row_pitch() < n[0] + 2 * g)
    return fmt::format("HaloExchange: pitch {} is smaller than n[0] + 2 * ghost = {}", l.row_pitch(), n[0] + 2 * g);
  if (l.plane_rows() < n[1] + 2 * g)
    return fmt::format("HaloExchange: rows {} is smaller than n[1] + 2 * ghost = {}", l.plane_rows(), n[1] + 2 * g);
  return {};
}

}  // namespace

struct HaloExchange::Impl {
  // One message: its box in the local array, where it sits in the pack buffer, and whom it joins.
  struct Transfer {
    detail::HaloBox box;
    std::size_t offset = 0, bytes = 0;
    int peer = MPI_PROC_NULL, tag = 0;
  };
  // A message from this rank to itself (one rank along a periodic axis) skips the transport:
  // packed at begin() like any other, and at finish() unpacked straight from the send buffer
  // (device memory: no copy, no host wait) or copied across first (host memory).
  struct SelfCopy {
    std::size_t from = 0, to = 0, bytes = 0;  // in the send and receive buffers
    detail::HaloBox recv;                     // the ghost box it fills
  };
  // Transfers started together: all six faces (faces mode) or one axis (corners mode).
  struct Phase {
    std::vector<Transfer> sends, recvs;
    std::vector<Message> send_messages, recv_messages;  // to and from other ranks
    std::vector<SelfCopy> self_copies;
  };

  const CartDecomposition* decomp = nullptr;
  Transport* transport = nullptr;
  HaloLayout layout;
  HaloOptions options;
  int fields = 0;
  detail::HaloGeometry geo;
  Memory memory = Memory::host;
  std::vector<Phase> phases;

  // Pack buffers, allocated once: device memory for device transports, pinned host otherwise.
  DeviceBuffer<std::byte> device_send, device_recv;
  PinnedBuffer<std::byte> host_send, host_recv;
  std::byte* send_base = nullptr;
  std::byte* recv_base = nullptr;

  // The exchange in flight (between begin() and finish()).
  bool in_flight = false;
  std::vector<void*> current;
  stream_t phase_stream = nullptr;
  std::unique_ptr<Exchange> pending;
#if defined(TESSERA_HAVE_CUDA)
  cudaEvent_t received = nullptr;  // a phase's data arrived (on the stream given to start)
  cudaEvent_t unpacked = nullptr;  // the last unpack finished reading the receive buffers
#endif

  ~Impl() {
    if (pending) {
      // Destroyed mid-exchange (an exception unwound past finish()): MPI or NCCL may still
      // write into the buffers, and waiting could hang on a failed peer. Leak them rather than
      // free memory in use; the job is ending anyway.
      (void)pending.release();
      (void)new auto(std::move(device_send)), (void)new auto(std::move(device_recv));
      (void)new auto(std::move(host_send)), (void)new auto(std::move(host_recv));
    }
#if defined(TESSERA_HAVE_CUDA)
    if (received) (void)cudaEventDestroy(received);
    if (unpacked) (void)cudaEventDestroy(unpacked);
#endif
  }

  // Whether the ghost layer on `side` of `axis` is filled by the exchange.
  bool active(int axis, int side) const {
    return options.fill[axis][side] && decomp->neighbor(axis, side) != MPI_PROC_NULL;
  }

  // The box of the face (send) or ghost layer (recv) on `side` of `axis`. Along the other axes
  // it spans the interior, and in corners mode also the ghost layers that earlier phases filled,
  // so edge and corner ghosts travel with the later phases.
  detail::HaloBox box(int axis, int side, bool send) const {
    const int g = layout.ghost;
    const auto& n = layout.n;
    detail::HaloBox b;
    for (int o = 0; o < 3; ++o) {
      if (o == axis) {
        b.lo[o] = send ? (side == 0 ? g : n[o]) : (side == 0 ? 0 : n[o] + g);
        b.extent[o] = g;
      } else if (options.corners && o < axis) {
        // Same on both ends of the message: neighbours along `axis` share their coordinates
        // (hence their domain faces) along o, and options are the same on every rank.
        b.lo[o] = active(o, 0) ? 0 : g;
        b.extent[o] = g + n[o] + (active(o, 1) ? g : 0) - b.lo[o];
      } else {
        b.lo[o] = g;
        b.extent[o] = n[o];
      }
    }
    return b;
  }

  void plan() {
    const int nphases = options.corners ? 3 : 1;
    phases.resize(static_cast<std::size_t>(nphases));
    std::size_t send_bytes = 0, recv_bytes = 0;
    const auto add = [&](std::vector<Transfer>& list, std::size_t& total, detail::HaloBox b, int peer, int tag) {
      Transfer t{b, total, static_cast<std::size_t>(b.cells()) * static_cast<std::size_t>(fields) * geo.elem_size,
                 peer, tag};
      total += (t.bytes + kAlign - 1) / kAlign * kAlign;
      list.push_back(t);
    };
    for (int axis = 0; axis < 3; ++axis) {
      Phase& ph = phases[options.corners ? axis : 0];
      for (int side = 0; side < 2; ++side) {
        const int peer = decomp->neighbor(axis, side);
        if (peer == MPI_PROC_NULL) continue;
        // Our face on `side` fills the neighbour's ghost on the opposite side, if it wants it.
        if (options.fill[axis][1 - side]) add(ph.sends, send_bytes, box(axis, side, true), peer, halo_tag(axis, side));
        if (options.fill[axis][side]) add(ph.recvs, recv_bytes, box(axis, side, false), peer, halo_tag(axis, 1 - side));
      }
    }
    // Tag order on both ends, for transports that match messages between two ranks in order.
    for (Phase& ph : phases)
      for (auto* list : {&ph.sends, &ph.recvs})
        std::stable_sort(list->begin(), list->end(), [](const Transfer& x, const Transfer& y) { return x.tag < y.tag; });

    if (memory == Memory::device) {
      device_send = DeviceBuffer<std::byte>(send_bytes);
      device_recv = DeviceBuffer<std::byte>(recv_bytes);
      send_base = device_send.data();
      recv_base = device_recv.data();
    } else {
      host_send = PinnedBuffer<std::byte>(send_bytes);
      host_recv = PinnedBuffer<std::byte>(recv_bytes);
      send_base = host_send.data();
      recv_base = host_recv.data();
    }
    const int me = decomp->rank_of(decomp->coords());
    for (Phase& ph : phases) {
      for (const Transfer& t : ph.sends) {
        if (t.peer != me) {
          ph.send_messages.push_back({send_base + t.offset, t.bytes, t.peer, t.tag});
          continue;
        }
        // Its receive is the one with the same tag (a tag names an axis and a direction).
        const auto r = std::find_if(ph.recvs.begin(), ph.recvs.end(),
                                    [&](const Transfer& x) { return x.peer == me && x.tag == t.tag; });
        if (r == ph.recvs.end() || r->bytes != t.bytes)
          throw std::logic_error("HaloExchange: a message to this rank itself has no matching receive");
        ph.self_copies.push_back({t.offset, r->offset, t.bytes, r->box});
      }
      for (const Transfer& t : ph.recvs)
        if (t.peer != me) ph.recv_messages.push_back({recv_base + t.offset, t.bytes, t.peer, t.tag});
    }
    // In device memory a self message unpacks from the send buffer (complete_phase).
    if (memory == Memory::device)
      for (Phase& ph : phases)
        ph.recvs.erase(
            std::remove_if(ph.recvs.begin(), ph.recvs.end(), [&](const Transfer& t) { return t.peer == me; }),
            ph.recvs.end());
  }

  void pack(const Transfer& t, stream_t stream) {
    void* buf = send_base + t.offset;
#if defined(TESSERA_HAVE_CUDA)
    if (memory == Memory::device) return detail::pack_device(geo, t.box, current.data(), fields, buf, stream);
#endif
    (void)stream;
    detail::pack_host(geo, t.box, current.data(), fields, buf);
  }

  void unpack(const Transfer& t, stream_t stream) {
    const void* buf = recv_base + t.offset;
#if defined(TESSERA_HAVE_CUDA)
    if (memory == Memory::device) return detail::unpack_device(geo, t.box, current.data(), fields, buf, stream);
#endif
    (void)stream;
    detail::unpack_host(geo, t.box, current.data(), fields, buf);
  }

  void start_phase(Phase& ph, stream_t stream) {
    for (const Transfer& t : ph.sends) pack(t, stream);
    if (memory == Memory::host)
      for (const SelfCopy& c : ph.self_copies) std::copy_n(send_base + c.from, c.bytes, recv_base + c.to);
    phase_stream = stream;
    if (!ph.send_messages.empty() || !ph.recv_messages.empty())
      pending = transport->start(ph.send_messages, ph.recv_messages, stream);
  }

  void complete_phase(Phase& ph, stream_t stream) {
    if (pending) {
      pending->finish();
      pending.reset();
    }
#if defined(TESSERA_HAVE_CUDA)
    // Received data is ordered on the stream given to start(); unpack may run on another.
    if (memory == Memory::device && stream != phase_stream && !(ph.recvs.empty() && ph.self_copies.empty())) {
      TESSERA_CUDA_CHECK(cudaEventRecord(received, phase_stream));
      TESSERA_CUDA_CHECK(cudaStreamWaitEvent(stream, received, 0));
    }
#endif
    for (const Transfer& t : ph.recvs) unpack(t, stream);
#if defined(TESSERA_HAVE_CUDA)
    if (memory == Memory::device)
      for (const SelfCopy& c : ph.self_copies)
        detail::unpack_device(geo, c.recv, current.data(), fields, send_base + c.from, stream);
#endif
  }
};

HaloExchange::HaloExchange(const CartDecomposition& decomp, Transport& transport, HaloLayout layout, int fields,
                           HaloOptions options)
    : impl_(std::make_unique<Impl>()), layout_(layout) {
  Impl& m = *impl_;
  m.decomp = &decomp;
  m.transport = &transport;
  m.layout = layout;
  m.options = options;
  m.fields = fields;
  m.memory = transport.memory();
  m.geo = {layout.row_pitch(), layout.plane_rows(), layout.elem_size};

  // Each rank checks its own layout; one agreement decides for all, so a rank whose
  // subdomain is too thin for the ghost width (uneven sizes) fails every rank alike instead
  // of leaving the others waiting for messages that never come.
  std::string problem = layout_problem(decomp, layout, fields);
  if (problem.empty() && m.memory == Memory::device && !cuda_compiled())
    problem = "HaloExchange: a device transport in a build without CUDA";
  try {
    all_ok(decomp.context(), problem.empty(), problem, ExitCode::internal_error);
  } catch (const CollectiveError& e) {
    // The same message on every rank: the lowest failing rank's.
    throw std::invalid_argument(decomp.context().size() > 1 ? fmt::format("{} [rank {}]", e.what(), e.failed_rank())
                                                            : std::string(e.what()));
  }

  m.plan();
#if defined(TESSERA_HAVE_CUDA)
  if (m.memory == Memory::device) {
    TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&m.received, cudaEventDisableTiming));
    TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&m.unpacked, cudaEventDisableTiming));
  }
#endif
}

HaloExchange::~HaloExchange() = default;

void HaloExchange::begin(std::span<void* const> fields, stream_t stream) {
  TESSERA_PROFILE_SYNC("halo.begin", stream);  // packs and posts the first phase
  Impl& m = *impl_;
  if (m.in_flight) throw std::logic_error("HaloExchange::begin: the previous exchange was not finished");
  if (static_cast<int>(fields.size()) != m.fields)
    throw std::invalid_argument(
        fmt::format("HaloExchange::begin: {} field pointers given, the exchange was built for {}", fields.size(),
                    m.fields));
  for (void* p : fields) {
    if (!p) throw std::invalid_argument("HaloExchange::begin: a field pointer is null");
    if (m.memory == Memory::device && reinterpret_cast<std::uintptr_t>(p) % layout_.elem_size != 0)
      throw std::invalid_argument(fmt::format("HaloExchange::begin: device field {} is not aligned to its {}-byte "
                                              "elements",
                                              p, layout_.elem_size));
  }
  m.current.assign(fields.begin(), fields.end());
#if defined(TESSERA_HAVE_CUDA)
  if (m.memory == Memory::device) {
    // The previous finish() may still be unpacking from the receive buffers, on any stream.
    // The transport writes the receive buffers after work queued on `stream`, so ordering
    // `stream` after that unpack protects them (and the send buffers, by the same chain).
    TESSERA_CUDA_CHECK(cudaStreamWaitEvent(stream, m.unpacked, 0));
  }
#endif
  m.start_phase(m.phases.front(), stream);
  m.in_flight = true;
}

void HaloExchange::finish(stream_t stream) {
  TESSERA_PROFILE_SYNC("halo.finish", stream);  // waits for the ghosts and unpacks them
  Impl& m = *impl_;
  if (!m.in_flight) throw std::logic_error("HaloExchange::finish: no exchange was begun");
  m.in_flight = false;
  m.complete_phase(m.phases.front(), stream);
  // Corners mode: each later phase sends slabs that include the ghosts just unpacked.
  for (std::size_t p = 1; p < m.phases.size(); ++p) {
    m.start_phase(m.phases[p], stream);
    m.complete_phase(m.phases[p], stream);
  }
#if defined(TESSERA_HAVE_CUDA)
  if (m.memory == Memory::device) TESSERA_CUDA_CHECK(cudaEventRecord(m.unpacked, stream));
#endif
}

}  // namespace tessera::comm
