#include "solvers/fdtd/xdmf.hpp"

#include <fmt/format.h>

namespace tessera::fdtd {
namespace {

constexpr const char* kHeader =
    "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n <Domain>\n";
constexpr const char* kFooter = " </Domain>\n</Xdmf>\n";

// XDMF lists dimensions, origins and spacings slowest first: z, y, x. Doubles print in the
// shortest form that reads back exactly.
template <class T>
std::string zyx(const std::array<T, 3>& v) {
  return fmt::format("{} {} {}", v[2], v[1], v[0]);
}

std::string field_value(const std::string& name, const std::string& number_type, const std::string& value) {
  return fmt::format(
      "    <Attribute Name=\"{}\" AttributeType=\"Scalar\" Center=\"Grid\">\n"
      "     <DataItem Dimensions=\"1\" NumberType=\"{}\" Precision=\"8\" Format=\"XML\">{}</DataItem>\n"
      "    </Attribute>\n",
      name, number_type, value);
}

// One uniform grid of `g` at output step `st`, with the Time value `time`.
std::string uniform_grid(const XdmfGrid& g, const XdmfStep& st, double time) {
  const std::string dims = zyx(g.samples);
  std::string out;
  out += fmt::format("   <Grid Name=\"{}\" GridType=\"Uniform\">\n", g.name);
  out += fmt::format("    <Time Value=\"{}\"/>\n", time);
  out += fmt::format("    <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{}\"/>\n", dims);
  out += "    <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
  out += fmt::format("     <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">{}</DataItem>\n",
                     zyx(g.origin));
  out += fmt::format("     <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">{}</DataItem>\n",
                     zyx(g.spacing));
  out += "    </Geometry>\n";
  for (const XdmfArray& a : g.arrays) {
    const bool vector = a.width == 3;
    out += fmt::format("    <Attribute Name=\"{}\" AttributeType=\"{}\" Center=\"Node\">\n", a.name,
                       vector ? "Vector" : "Scalar");
    out += fmt::format(
        "     <DataItem Dimensions=\"{}{}\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">{}:/{}</DataItem>\n",
        dims, vector ? " 3" : "", st.file, a.name);
    out += "    </Attribute>\n";
  }
  for (const auto& [name, offset] : g.times) out += field_value(name, "Float", fmt::format("{}", st.time + offset));
  out += field_value("step", "Int", fmt::format("{}", st.step));
  out += "   </Grid>\n";
  return out;
}

std::string temporal_collection(const XdmfSeries& s, const XdmfGrid& g, bool own_times) {
  std::string out = fmt::format("  <Grid Name=\"{}\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", g.name);
  const double offset = own_times && !g.times.empty() ? g.times.front().second : 0.0;
  for (const XdmfStep& st : s.steps) out += uniform_grid(g, st, st.time + offset);
  out += "  </Grid>\n";
  return out;
}

}  // namespace

std::string xdmf_text(const XdmfSeries& s) {
  std::string out = kHeader;
  for (const XdmfGrid& g : s.grids) out += temporal_collection(s, g, false);
  return out + kFooter;
}

std::string xdmf_grid_text(const XdmfSeries& s, std::size_t grid) {
  return kHeader + temporal_collection(s, s.grids.at(grid), true) + kFooter;
}

}  // namespace tessera::fdtd
