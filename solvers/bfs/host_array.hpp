#pragma once
// HostArray<T>: a std::vector whose resize() leaves integers unset (default-initialised)
// instead of zeroing them. The graph build sizes arrays of billions of entries and fills
// them in parallel loops; a zeroing resize would first touch every page on one thread
// (seconds at Kronecker scale 26), while here the pages are faulted in by the threads that
// write them.
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera::bfs {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T, class U>
bool operator==(const DefaultInitAllocator<T>&, const DefaultInitAllocator<U>&) noexcept {
  return true;
}

template <class T>
using HostArray = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace tessera::bfs
