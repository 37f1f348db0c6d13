#include "solvers/spmv/output.hpp"

#include "io/h5.hpp"
#include "io/output_file.hpp"
#include "solvers/spmv/matrix_io.hpp"

namespace tessera::spmv {

void write_stats_attributes(const io::Object& g, const MatrixStats& s) {
  io::write_attribute(g, "rows", s.rows);
  io::write_attribute(g, "columns", s.cols);
  io::write_attribute(g, "nonzeros", s.nnz);
  io::write_attribute(g, "row_length_min", s.row_min);
  io::write_attribute(g, "row_length_mean", s.row_mean);
  io::write_attribute(g, "row_length_max", s.row_max);
  io::write_attribute(g, "empty_rows", s.empty_rows);
  io::write_attribute(g, "hybrid_rule", std::string(to_string(s.rule)));
  io::write_attribute(g, "hybrid_ell_width", s.hybrid.width);
  io::write_attribute(g, "hybrid_ell_entries", s.hybrid.ell_entries);
  io::write_attribute(g, "hybrid_ell_slots", s.hybrid.ell_slots);
  io::write_attribute(g, "hybrid_coo_entries", s.hybrid.coo_entries);
  io::write_attribute(g, "hybrid_coo_rows", s.hybrid.coo_rows);
  io::write_attribute(g, "ghost_columns", s.ghosts);
  io::write_attribute(g, "rank_nonzeros_min", s.rank_nnz_min);
  io::write_attribute(g, "rank_nonzeros_max", s.rank_nnz_max);
}

template <class T>
std::filesystem::path write_matrix_file(comm::Context& ctx, const std::filesystem::path& dir, const DistMatrix<T>& m,
                                        const MatrixStats& stats, const io::Provenance& provenance) {
  io::OutputFile file(ctx, dir / kMatrixFile);
  {
    const io::Group& root = file.root();
    write_csr(ctx, root, m);
    write_stats_attributes(root, stats);
    io::write_attribute(root, "matrix", m.description);
    io::write_provenance(root, provenance);
  }
  return file.commit();
}

template std::filesystem::path write_matrix_file<float>(comm::Context&, const std::filesystem::path&,
                                                        const DistMatrix<float>&, const MatrixStats&,
                                                        const io::Provenance&);
template std::filesystem::path write_matrix_file<double>(comm::Context&, const std::filesystem::path&,
                                                         const DistMatrix<double>&, const MatrixStats&,
                                                         const io::Provenance&);

}  // namespace tessera::spmv
