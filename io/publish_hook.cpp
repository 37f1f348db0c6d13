#include "io/publish_hook.hpp"

#include <utility>

namespace tessera::io {
namespace {

PublishObserver& observer() {
  static PublishObserver o;
  return o;
}

}  // namespace

void set_publish_observer(PublishObserver o) { observer() = std::move(o); }

void notify_published(const std::filesystem::path& path) noexcept {
  try {
    if (observer()) observer()(path);
  } catch (...) {
    // Recording is a courtesy to a later --overwrite; a failure to record never fails a run.
  }
}

}  // namespace tessera::io
