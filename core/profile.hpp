#pragma once
// Named timing regions (the `--profile` table, profile.h5, and NVTX ranges in CUDA builds).
//
//   TESSERA_PROFILE("fdtd.halo");                  // times the rest of the enclosing scope
//   TESSERA_PROFILE_SYNC("fdtd.kernels", stream);  // ... and waits for `stream` at its end
//   profile::Region r("name");                     // a run-time name (must outlive the run)
//
// Off (the default), a region costs one branch on a global flag: no clock read, no lookup,
// no allocation. On (profile::start), each region adds its call, its inclusive time (entry to
// exit) and its exclusive time (inclusive less the inclusive time of regions nested inside it)
// to a per-name record, and in CUDA builds pushes an NVTX range of the same name, so Nsight
// Systems and `ncu --nvtx` see the same regions.
//
// Kernels are asynchronous: a host timer around a launch measures the launch, and the kernel's
// time lands in whichever later region waits for it. Regions that launch device work therefore
// use TESSERA_PROFILE_SYNC: when profiling is on they synchronize their stream before they
// close (as AMReX's TinyProfiler does with device_synchronize_around_region), so the time is
// the kernels'. That serializes work that would otherwise overlap (a halo exchange behind an
// interior kernel), so a profiled GPU run can be slower than an unprofiled one; the table then
// says what each phase costs on its own. In CPU builds the stream is always null and the sync
// a no-op.
//
// A region's name is stored by pointer: pass string literals or strings that outlive the run.
// A name entered inside itself (recursion) adds inclusive time only at the outermost level.
// Regions are kept for the rank's main thread (the one that called start()); a region opened
// on another thread (an OpenMP worker, a progress thread) is ignored.
#include <cstdint>
#include <string>
#include <vector>

#include "core/stream.hpp"

namespace tessera::profile {

namespace detail {
extern bool g_on;
}  // namespace detail

inline bool enabled() noexcept { return detail::g_on; }

// Clears every record, starts the wall clock and turns regions on for the calling thread.
void start();
// Turns regions off (records are kept for snapshot()). Regions still open are closed first.
void stop();
// Seconds since start() (until stop(), then the time start() to stop()).
double wall_seconds();

// One name's record on this rank.
struct Stat {
  std::string name;
  std::int64_t calls = 0;
  double inclusive = 0;  // seconds
  double exclusive = 0;  // seconds
  bool top_level = false;  // entered at least once with no region open
};
// This rank's records, sorted by name (every name entered since start()).
std::vector<Stat> snapshot();

// A call site: its name and, once profiling has seen it, its record's index (kept across
// start() calls, so a static Site stays valid). constexpr, so a static Site needs no guard.
class Site {
 public:
  constexpr explicit Site(const char* name) noexcept : name_(name) {}
  const char* name() const noexcept { return name_; }

 private:
  friend class Region;
  const char* name_;
  int index_ = -1;
};

class Region {
 public:
  explicit Region(Site& site) noexcept {
    if (detail::g_on) open(site);
  }
  Region(Site& site, stream_t sync) noexcept : sync_(sync), has_sync_(true) {
    if (detail::g_on) open(site);
  }
  // A name without a static Site: looked up by its text (when on).
  explicit Region(const char* name) noexcept {
    if (detail::g_on) open_named(name);
  }
  ~Region() {
    if (open_) close();
  }
  // Closes the region before the end of its scope (for a phase whose results outlive it).
  void end() {
    if (open_) close();
    open_ = false;
  }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

 private:
  void open(Site& site) noexcept;
  void open_named(const char* name) noexcept;
  void close();

  stream_t sync_ = nullptr;
  bool has_sync_ = false;
  bool open_ = false;
  std::uint32_t generation_ = 0;  // of start(): a region left open across stop()/start() closes nothing
};

}  // namespace tessera::profile

#define TESSERA_PROFILE_CAT2(a, b) a##b
#define TESSERA_PROFILE_CAT(a, b) TESSERA_PROFILE_CAT2(a, b)
#define TESSERA_PROFILE(name)                                                                   \
  static ::tessera::profile::Site TESSERA_PROFILE_CAT(tessera_profile_site_, __LINE__){name};  \
  const ::tessera::profile::Region TESSERA_PROFILE_CAT(tessera_profile_region_, __LINE__) {     \
    TESSERA_PROFILE_CAT(tessera_profile_site_, __LINE__)                                        \
  }
#define TESSERA_PROFILE_SYNC(name, stream)                                                      \
  static ::tessera::profile::Site TESSERA_PROFILE_CAT(tessera_profile_site_, __LINE__){name};  \
  const ::tessera::profile::Region TESSERA_PROFILE_CAT(tessera_profile_region_, __LINE__) {     \
    TESSERA_PROFILE_CAT(tessera_profile_site_, __LINE__), (stream)                              \
  }
