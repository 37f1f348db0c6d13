#include "core/profile.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <string_view>
#include <thread>

#if defined(TESSERA_HAVE_CUDA)
#include <nvtx3/nvToolsExt.h>
#endif

namespace tessera::profile {
namespace detail {
bool g_on = false;
}  // namespace detail

namespace {

using clock = std::chrono::steady_clock;

double now() { return std::chrono::duration<double>(clock::now().time_since_epoch()).count(); }

struct Record {
  const char* name;
  std::int64_t calls = 0;
  double inclusive = 0, exclusive = 0;
  int open = 0;  // how many times this name is on the stack now (recursion)
  bool top_level = false;
};

struct Frame {
  int index;
  double start;
  double children = 0;  // inclusive seconds of the regions closed directly inside this one
};

// Names are never forgotten (a Site keeps its index across start() calls); their numbers are.
struct State {
  std::vector<Record> records;
  std::map<std::string, int, std::less<>> index_of;  // name text -> record
  std::vector<Frame> stack;
  std::thread::id owner;
  double started = 0, stopped = -1;
  std::uint32_t generation = 0;
};

State& state() {
  static State s;
  return s;
}

int index_for(State& s, const char* name) {
  const auto it = s.index_of.find(std::string_view(name));
  if (it != s.index_of.end()) return it->second;
  const int i = static_cast<int>(s.records.size());
  s.records.push_back(Record{name});
  s.index_of.emplace(name, i);
  return i;
}

// Adds the frame on top of the stack to its record and pops it.
void pop(State& s, double t) {
  const Frame f = s.stack.back();
  s.stack.pop_back();
  Record& r = s.records[static_cast<std::size_t>(f.index)];
  const double inclusive = t - f.start;
  ++r.calls;
  r.exclusive += inclusive - f.children;
  if (--r.open == 0) r.inclusive += inclusive;  // recursion: count the outermost call only
  if (!s.stack.empty()) s.stack.back().children += inclusive;
#if defined(TESSERA_HAVE_CUDA)
  nvtxRangePop();
#endif
}

void push(State& s, int index) {
  Record& r = s.records[static_cast<std::size_t>(index)];
  if (s.stack.empty()) r.top_level = true;
  ++r.open;
#if defined(TESSERA_HAVE_CUDA)
  nvtxRangePushA(r.name);
#endif
  s.stack.push_back(Frame{index, now()});
}

}  // namespace

void start() {
  State& s = state();
  while (!s.stack.empty()) pop(s, now());
  for (Record& r : s.records) r = Record{r.name};
  s.owner = std::this_thread::get_id();
  ++s.generation;
  s.stopped = -1;
  s.started = now();
  detail::g_on = true;
}

void stop() {
  State& s = state();
  if (!detail::g_on) return;
  const double t = now();
  while (!s.stack.empty()) pop(s, t);
  s.stopped = t;
  ++s.generation;
  detail::g_on = false;
}

double wall_seconds() {
  const State& s = state();
  return (s.stopped >= 0 ? s.stopped : now()) - s.started;
}

std::vector<Stat> snapshot() {
  const State& s = state();
  std::vector<Stat> out;
  for (const Record& r : s.records)
    if (r.calls > 0) out.push_back(Stat{r.name, r.calls, r.inclusive, r.exclusive, r.top_level});
  std::sort(out.begin(), out.end(), [](const Stat& a, const Stat& b) { return a.name < b.name; });
  return out;
}

void Region::open(Site& site) noexcept {
  State& s = state();
  if (std::this_thread::get_id() != s.owner) return;
  if (site.index_ < 0) site.index_ = index_for(s, site.name_);
  push(s, site.index_);
  generation_ = s.generation;
  open_ = true;
}

void Region::open_named(const char* name) noexcept {
  State& s = state();
  if (std::this_thread::get_id() != s.owner) return;
  push(s, index_for(s, name));
  generation_ = s.generation;
  open_ = true;
}

void Region::close() {
  State& s = state();
  if (generation_ != s.generation || s.stack.empty()) return;  // stop() closed it already
  if (has_sync_ && std::uncaught_exceptions() == 0) {
    // A failed kernel's error is sticky: the next checked CUDA call reports it, so a
    // destructor need not (and must not) throw it.
    try {
      synchronize(sync_);
    } catch (...) {
    }
  }
  pop(s, now());
}

}  // namespace tessera::profile
