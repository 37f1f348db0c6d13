#include "solvers/fdtd/xdmf.hpp"

#include <fmt/format.h>

namespace tessera::fdtd {

std::string xdmf_text(const XdmfSeries& s) {
  std::string out;
  out += "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n <Domain>\n";
  out += fmt::format("  <Grid Name=\"{}\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", s.name);
  // XDMF lists dimensions, origins and spacings slowest first: z, y, x.
  const std::string dims = fmt::format("{} {} {}", s.samples[2], s.samples[1], s.samples[0]);
  for (const XdmfStep& st : s.steps) {
    out += fmt::format("   <Grid Name=\"step_{:08d}\" GridType=\"Collection\" CollectionType=\"Spatial\">\n", st.step);
    out += fmt::format("    <Time Value=\"{}\"/>\n", st.time);
    for (int c : s.components) {
      const auto stag = staggering(c);
      double origin[3], spacing[3];
      for (int a = 0; a < 3; ++a) {
        origin[a] = (double(s.first_cell[a]) + stag[a]) * s.cell_size[a];
        spacing[a] = double(s.stride[a]) * s.cell_size[a];
      }
      out += fmt::format("    <Grid Name=\"{}\" GridType=\"Uniform\">\n", kComponentName[c]);
      out += fmt::format("     <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{}\"/>\n", dims);
      out += "     <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
      out += fmt::format(
          "      <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">{} {} "
          "{}</DataItem>\n",
          origin[2], origin[1], origin[0]);
      out += fmt::format(
          "      <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">{} {} "
          "{}</DataItem>\n",
          spacing[2], spacing[1], spacing[0]);
      out += "     </Geometry>\n";
      out += fmt::format("     <Attribute Name=\"{}\" AttributeType=\"Scalar\" Center=\"Node\">\n", kComponentName[c]);
      out += fmt::format(
          "      <DataItem Dimensions=\"{}\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">{}:/{}</DataItem>\n",
          dims, st.file, kComponentName[c]);
      out += "     </Attribute>\n    </Grid>\n";
    }
    out += "   </Grid>\n";
  }
  out += "  </Grid>\n </Domain>\n</Xdmf>\n";
  return out;
}

}  // namespace tessera::fdtd
