#pragma once
// SeriesLog: what a run adds to one growing output file (time series rows, and for BFS the
// trees of each search), kept in memory and published in batches.
//
// Every change to a published file goes through a verified copy (OutputFile::modify), and
// a copy costs the whole file. Appending each row that way made every diagnostics step copy
// the file: quadratic in the run's length, and with BFS trees in the file, in the data.
// A SeriesLog instead publishes
//   - whenever the solver asks (publish(): before its checkpoints, so the file always holds
//     every row up to the newest checkpoint, and at the end of the run);
//   - in between (publish_if_due()) at most as often as keeps copying under about 5% of the
//     run's wall time (at least kMinSeconds apart), so a watched run still shows progress;
//   - and when what waits passes kMaxPendingBytes on a rank.
// Rows added since the last publication are lost when a run dies; a restart starts from a
// checkpoint, before which every row was published, and computes them again.
//
// A restart (resume()): the file keeps the rows an earlier run wrote after the checkpoint
// until this run's rows replace them (TimeSeries::replace_after), publication by
// publication. A restart that fails before it has rewritten them leaves them published, so
// no row an earlier run published is lost, and `--restart latest` continues without a gap.
//
//   io::SeriesLog log(ctx, dir / "diagnostics.h5");
//   log.add_row("nbody", row);   // every rank adds the same rows, in the same order
//   log.publish_if_due();        // collective
//   log.publish();               // collective (at checkpoints and at the end)
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "io/h5_file.hpp"

namespace tessera::io {

class SeriesLog {
 public:
  static constexpr double kMinSeconds = 10.0;
  static constexpr double kMaxCostFraction = 0.05;
  static constexpr std::size_t kMaxPendingBytes = std::size_t{256} << 20;

  // The file must exist (created and, on a restart, truncated by the solver) before the
  // first publication.
  SeriesLog(comm::Context& ctx, std::filesystem::path file);

  // One row of the existing time series `series` (every rank adds the same rows).
  void add_row(const std::string& series, std::span<const double> row);
  void add_row(const std::string& series, std::initializer_list<double> row) {
    add_row(series, std::span<const double>(row.begin(), row.size()));
  }
  // After a restart from a checkpoint where `column` of `series` was `last` (the step): the
  // file's rows beyond it are an earlier run's, replaced as this run's rows arrive.
  void resume(const std::string& series, const std::string& column, double last);

  // Any other change, applied to the file's root after the rows added before it (collective
  // when published; every rank adds one). `bytes`: the memory it holds on this rank until then.
  void add_change(std::function<void(const Group& root)> change, std::size_t bytes);

  // Collective: publish() when due (above); the decision is rank 0's, so all ranks agree.
  void publish_if_due();
  // Collective: one verified copy of the file with everything added since the last one.
  void publish();

  bool pending() const { return !pending_.empty(); }
  const std::filesystem::path& file() const { return file_; }

 private:
  struct Pending {
    std::string series;                        // rows of this series, or empty: `change`
    std::vector<double> rows;                  // row-major
    std::function<void(const Group&)> change;  // when series is empty
  };

  struct Resumed {
    std::string column;  // the key of the rows (the step)
    double through;      // rows up to this key are this run's (or before its checkpoint)
  };

  comm::Context& ctx_;
  std::filesystem::path file_;
  std::map<std::string, Resumed, std::less<>> resumed_;  // series with an earlier run's rows after ours
  std::vector<Pending> pending_;
  std::size_t pending_bytes_ = 0;
  double last_publish_ = 0;   // steady-clock seconds when the last publication ended
  double last_cost_ = 0;      // seconds the last publication took
};

}  // namespace tessera::io
