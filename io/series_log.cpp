#include "io/series_log.hpp"

#include <algorithm>
#include <chrono>

#include "comm/collectives.hpp"
#include "io/output_file.hpp"
#include "io/time_series.hpp"

namespace tessera::io {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

SeriesLog::SeriesLog(comm::Context& ctx, std::filesystem::path file)
    : ctx_(ctx), file_(std::move(file)), last_publish_(now_seconds()) {}

void SeriesLog::add_row(const std::string& series, std::span<const double> row) {
  if (pending_.empty() || pending_.back().series != series) pending_.push_back({series, {}, {}});
  auto& rows = pending_.back().rows;
  rows.insert(rows.end(), row.begin(), row.end());
  pending_bytes_ += row.size_bytes();
}

void SeriesLog::resume(const std::string& series, const std::string& column, double last) {
  resumed_[series] = Resumed{column, last};
}

void SeriesLog::add_change(std::function<void(const Group& root)> change, std::size_t bytes) {
  pending_.push_back({std::string(), {}, std::move(change)});
  pending_bytes_ += bytes;
}

void SeriesLog::publish_if_due() {
  int due = 0;
  if (ctx_.is_root()) {
    const double waited = now_seconds() - last_publish_;
    due = pending() && (pending_bytes_ > kMaxPendingBytes ||
                        waited >= std::max(kMinSeconds, last_cost_ / kMaxCostFraction));
  }
  if (comm::broadcast_value(ctx_, due)) publish();
}

void SeriesLog::publish() {
  if (pending_.empty()) return;  // the same on every rank: all add the same rows and changes
  const double start = now_seconds();
  OutputFile file = OutputFile::modify(ctx_, file_);
  for (const Pending& p : pending_) {
    if (p.series.empty()) {
      p.change(file.root());
    } else if (const auto r = resumed_.find(p.series); r != resumed_.end()) {
      TimeSeries ts = TimeSeries::open(file.root(), p.series);
      const std::int64_t earlier = ts.replace_after(r->second.column, r->second.through, p.rows);
      if (!p.rows.empty())
        r->second.through = p.rows[p.rows.size() - ts.columns().size() + ts.column_index(r->second.column)];
      if (earlier == 0) resumed_.erase(r);  // all rewritten: plain appends from here
    } else {
      TimeSeries::open(file.root(), p.series).append_rows(p.rows);
    }
  }
  file.commit();
  pending_.clear();
  pending_bytes_ = 0;
  last_publish_ = now_seconds();
  last_cost_ = last_publish_ - start;
}

}  // namespace tessera::io
