#include "solvers/scan/output.hpp"

#include "comm/errors.hpp"
#include "io/h5.hpp"
#include "io/output_file.hpp"

namespace tessera::scan {

std::filesystem::path write_result_file(comm::Context& ctx, const std::filesystem::path& dir, ScanJob& job,
                                        const Params& s, const RunRecord& record) {
  const std::filesystem::path final_path = dir / "scan.h5";
  io::OutputFile file(ctx, final_path);  // published only once read back and verified
  {
    const io::Group& root = file.root();
    job.write(root);
    io::write_provenance(root, record.provenance);
    io::write_attribute(root, "type", std::string(to_string(s.input_type)));
    io::write_attribute(root, "accumulate", std::string(to_string(s.output_type)));
    io::write_attribute(root, "mode", std::string(to_string(s.mode)));
    io::write_attribute(root, "variant", std::string(to_string(s.variant)));
    io::write_attribute(root, "length", s.length);
    io::write_attribute(root, "input", s.input.describe());
    io::write_attribute(root, "backend", std::string(tessera::to_string(record.backend)));
    io::write_attribute(root, "steps", record.steps);
    io::write_attribute(root, "seconds_per_scan", record.seconds_per_scan);
  }
  return file.commit();
}

}  // namespace tessera::scan
