#pragma once
// One process-wide observer of the files tessera publishes: OutputFile::commit() and
// publish_text_file() report each file once it has its final name. The run directory
// (app/run_directory.hpp) uses it to record which files a run wrote, so that a later
// --overwrite deletes exactly those and nothing a user put beside them.
//
// Not collective: called where the rename happened (rank 0 for an OutputFile). No observer:
// nothing happens. An observer must not throw.
#include <filesystem>
#include <functional>

namespace tessera::io {

using PublishObserver = std::function<void(const std::filesystem::path& published)>;

// Replaces the observer (an empty one removes it).
void set_publish_observer(PublishObserver observer);
// Tells the observer, if there is one, that `path` was published.
void notify_published(const std::filesystem::path& path) noexcept;

}  // namespace tessera::io
