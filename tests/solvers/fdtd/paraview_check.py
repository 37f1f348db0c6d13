"""pvpython paraview_check.py OUT_DIR PNG_DIR: ParaView 5.11 opens what decks/paraview.toml wrote.

Checks, with each of ParaView's XDMF readers where it applies (docs/fdtd.md, "Opening the
fields in ParaView"):
  - fields.xmf (Ez Hx Hy, staggered): the output times; "XDMF Reader" names the blocks Ez, Hx,
    Hy at every time and ExtractBlock picks them by name; "Xdmf3 Reader (T)" gives the same
    blocks in deck order; each grid's points, bounds (the Yee nodes, the high walls included)
    and field data "time" (H half a step before E);
  - fields_Hx.xmf, fields_Ez.xmf ("Xdmf3 Reader (S)", ParaView's default): one plain grid each,
    H at its own times;
  - centred.xmf (collocated, "Xdmf3 Reader (S)"): 3-component arrays E and H at the cell centres;
  - the periodic y wall: the Ez nodes at y = 20 mm equal those at y = 0;
  - a z slice of Ez (picked from fields.xmf with ExtractBlock) and of |E| (centred.xmf),
    rendered to PNG and read back: many colours, a large coloured (not grey) area.
Prints each check; exits 1 at the first failure.
"""
import os
import sys

from paraview import servermanager as sm
from paraview.simple import (ColorBy, CreateView, Delete, ExtractBlock, GetDisplayProperties, Render,
                             SaveScreenshot, Show, Slice, XDMFReader, Xdmf3ReaderS, Xdmf3ReaderT)
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOImage import vtkPNGReader
import numpy as np

DT = 2e-12
STEPS = [0, 10, 20, 30]
E_TIMES = [s * DT for s in STEPS]
H_TIMES = [t - DT / 2 for t in E_TIMES]
MM = 1e-3
# Yee nodes of a 12 x 10 x 8 grid of 2 mm cells (bounds in m: x, y, z), the high walls included
# along the axes where a component has nodes on them.
BOUNDS = {"Ez": (0, 24, 0, 20, 1, 15), "Hx": (0, 24, 1, 19, 1, 15), "Hy": (1, 23, 0, 20, 1, 15),
          "centred": (1, 23, 1, 19, 1, 15)}
DIMS = {"Ez": (13, 11, 8), "Hx": (13, 10, 8), "Hy": (12, 11, 8), "centred": (12, 10, 8)}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


def same_times(what, got, want):
    got = list(got)
    if len(got) != len(want) or any(abs(a - b) > 1e-6 * DT for a, b in zip(got, want)):
        fail(f"{what}: time steps {got}, expected {want}")
    ok(f"{what}: time steps {['%.4g' % t for t in got]}")


def leaves(d, path=""):
    """(path of block names, dataset) for every leaf of a composite."""
    if d is None:
        return []
    if d.IsA("vtkMultiBlockDataSet"):
        out = []
        for i in range(d.GetNumberOfBlocks()):
            name = d.GetMetaData(i).Get(d.NAME()) if d.HasMetaData(i) else None
            out += leaves(d.GetBlock(i), f"{path}/{name if name is not None else 'Block%d' % i}")
        return out
    if d.IsA("vtkMultiPieceDataSet"):
        out = []
        for i in range(d.GetNumberOfPieces()):
            out += leaves(d.GetPiece(i), f"{path}/piece{i}")
        return out
    return [(path, d)]


def arrays(d):
    pd = d.GetPointData()
    return [pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays())]


def field(d, name):
    a = d.GetFieldData().GetArray(name)
    if a is None:
        fail(f"no field data '{name}' (has {[d.GetFieldData().GetArrayName(i) for i in range(d.GetFieldData().GetNumberOfArrays())]})")
    return a.GetTuple1(0)


def check_grid(what, d, key, array, time):
    if d is None or not d.IsA("vtkImageData"):
        fail(f"{what}: expected one uniform grid, got {d.GetClassName() if d else None}")
    if array not in arrays(d):
        fail(f"{what}: no point array {array} (arrays {arrays(d)})")
    dims = d.GetDimensions()
    bounds = [round(b / MM, 6) for b in d.GetBounds()]
    if tuple(dims) != DIMS[key] or tuple(bounds) != BOUNDS[key]:
        fail(f"{what}: {dims} points over {bounds} mm, expected {DIMS[key]} over {BOUNDS[key]} mm")
    t = field(d, "time")
    if abs(t - time) > 1e-6 * DT:
        fail(f"{what}: field data time = {t}, expected {time}")
    ok(f"{what}: {array} on {dims} points, bounds {bounds} mm, time {t:.4g} s")


def fetch(proxy, t):
    proxy.UpdatePipeline(t)
    return sm.Fetch(proxy)


def check_png(path, what):
    r = vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    img = r.GetOutput()
    px = vtk_to_numpy(img.GetPointData().GetScalars())[:, :3].astype(int)
    colours = len(np.unique(px[:, 0] * 65536 + px[:, 1] * 256 + px[:, 2]))
    saturated = float(np.mean(px.max(axis=1) - px.min(axis=1) > 40))
    print(f"{what}: {path}: {img.GetDimensions()[0]} x {img.GetDimensions()[1]} pixels, {colours} colours, "
          f"{100 * saturated:.1f}% coloured")
    if colours < 50 or saturated < 0.05:
        fail(f"{what}: the rendered slice is (nearly) one colour: {colours} colours, "
             f"{100 * saturated:.1f}% of the pixels coloured")
    ok(f"{what}: the rendered slice shows the field")


def render_slice(source, array, component, png, time):
    view = CreateView("RenderView")
    view.ViewTime = time
    view.ViewSize = [400, 320]
    view.OrientationAxesVisibility = 0
    view.Background = [1, 1, 1]
    try:  # 5.11: a palette background unless told to use this view's own
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    s = Slice(Input=source)
    s.SliceType = "Plane"
    s.SliceType.Origin = [12 * MM, 10 * MM, 7 * MM]
    s.SliceType.Normal = [0, 0, 1]
    disp = Show(s, view)
    ColorBy(disp, ("POINTS", array, component) if component else ("POINTS", array))
    disp.RescaleTransferFunctionToDataRange(False, True)
    view.CameraPosition = [12 * MM, 10 * MM, 80 * MM]
    view.CameraFocalPoint = [12 * MM, 10 * MM, 7 * MM]
    view.CameraViewUp = [0, 1, 0]
    view.ResetCamera()
    Render(view)
    SaveScreenshot(png, view, ImageResolution=[400, 320])
    Delete(view)


def main():
    out, png_dir = sys.argv[1], sys.argv[2]
    os.makedirs(png_dir, exist_ok=True)
    fields = os.path.join(out, "fields.xmf")
    last = E_TIMES[-1]

    # ---- fields.xmf, "XDMF Reader": blocks named after the components at every time ----
    r = XDMFReader(FileNames=[fields])
    same_times("fields.xmf (XDMF Reader)", r.TimestepValues, E_TIMES)
    for t in (E_TIMES[0], last):
        names = [p for p, _ in leaves(fetch(r, t))]
        if names != ["/Ez", "/Hx", "/Hy"]:
            fail(f"fields.xmf (XDMF Reader) at t = {t}: blocks {names}, expected /Ez /Hx /Hy")
    ok("fields.xmf (XDMF Reader): blocks /Ez /Hx /Hy at the first and last time")
    for name in ("Ez", "Hx", "Hy"):
        eb = ExtractBlock(Input=r, Selectors=[f"/Root/{name}"])
        for t, step in ((E_TIMES[1], 1), (last, 3)):
            got = leaves(fetch(eb, t))
            if len(got) != 1:
                fail(f"ExtractBlock /Root/{name} at t = {t}: {len(got)} blocks ({[p for p, _ in got]})")
            own = (H_TIMES if name[0] == "H" else E_TIMES)[step]
            check_grid(f"ExtractBlock /Root/{name} (XDMF Reader) at step {STEPS[step]}", got[0][1], name, name, own)
            if int(field(got[0][1], "step")) != STEPS[step]:
                fail(f"ExtractBlock /Root/{name}: field data step {field(got[0][1], 'step')}, expected {STEPS[step]}")
        Delete(eb)

    # The periodic y wall: Ez at y = 20 mm (from the other rank) equals Ez at y = 0, and is not 0.
    ez = leaves(fetch(ExtractBlock(Input=r, Selectors=["/Root/Ez"]), last))[0][1]
    a = vtk_to_numpy(ez.GetPointData().GetArray("Ez")).reshape(8, 11, 13)
    if not np.array_equal(a[:, 10, :], a[:, 0, :]) or not np.any(a[:, 0, :]):
        fail("Ez on the periodic high y wall differs from y = 0 (or is all zero)")
    if np.any(a[:, :, 12]) or np.any(a[:, :, 0]):
        fail("Ez on the PEC x walls is not zero")
    ok(f"Ez at y = 20 mm equals Ez at y = 0 (periodic, max |Ez| {np.abs(a).max():.4g} V/m); 0 on the x walls")

    # ---- fields.xmf, "Xdmf3 Reader (T)": the same blocks, unnamed, in deck order ----
    rt = Xdmf3ReaderT(FileName=[fields])
    same_times("fields.xmf (Xdmf3 Reader T)", rt.TimestepValues, E_TIMES)
    got = leaves(fetch(rt, last))
    if [arrays(d) for _, d in got] != [["Ez"], ["Hx"], ["Hy"]]:
        fail(f"fields.xmf (Xdmf3 Reader T): blocks {[(p, arrays(d)) for p, d in got]}")
    ok("fields.xmf (Xdmf3 Reader T): Block0 Ez, Block1 Hx, Block2 Hy")
    eb = ExtractBlock(Input=rt, Selectors=["/Root/Block1"])
    got = leaves(fetch(eb, last))
    if len(got) != 1:
        fail(f"ExtractBlock /Root/Block1 (Xdmf3 Reader T): {len(got)} blocks")
    check_grid("ExtractBlock /Root/Block1 (Xdmf3 Reader T)", got[0][1], "Hx", "Hx", H_TIMES[-1])
    Delete(eb)

    # ---- per-component files, "Xdmf3 Reader (S)" (ParaView's default): one grid each ----
    for name, times in (("Ez", E_TIMES), ("Hx", H_TIMES), ("Hy", H_TIMES)):
        rs = Xdmf3ReaderS(FileName=[os.path.join(out, f"fields_{name}.xmf")])
        same_times(f"fields_{name}.xmf (Xdmf3 Reader S)", rs.TimestepValues, times)
        check_grid(f"fields_{name}.xmf (Xdmf3 Reader S)", fetch(rs, times[2]), name, name, times[2])
        Delete(rs)

    # ---- centred.xmf (collocated), "Xdmf3 Reader (S)": E and H vectors on one grid ----
    rc = Xdmf3ReaderS(FileName=[os.path.join(out, "centred.xmf")])
    same_times("centred.xmf (Xdmf3 Reader S)", rc.TimestepValues, E_TIMES)
    d = fetch(rc, last)
    check_grid("centred.xmf (Xdmf3 Reader S)", d, "centred", "E", last)
    for name in ("E", "H"):
        a = d.GetPointData().GetArray(name)
        if a is None or a.GetNumberOfComponents() != 3:
            fail(f"centred.xmf: {name} is not a 3-component point array")
    if abs(field(d, "time_h") - H_TIMES[-1]) > 1e-6 * DT:
        fail(f"centred.xmf: field data time_h = {field(d, 'time_h')}, expected {H_TIMES[-1]}")
    ok("centred.xmf: 3-component E and H, time_h half a step before time")

    # ---- render: a z slice of Ez (fields.xmf, picked by name) and of |E| (centred.xmf) ----
    eb = ExtractBlock(Input=r, Selectors=["/Root/Ez"])
    eb.UpdatePipeline(last)
    png = os.path.join(png_dir, "ez_slice.png")
    render_slice(eb, "Ez", None, png, last)
    check_png(png, "Ez slice (fields.xmf, ExtractBlock /Root/Ez)")
    rc.UpdatePipeline(last)
    png = os.path.join(png_dir, "centred_slice.png")
    render_slice(rc, "E", "Magnitude", png, last)
    check_png(png, "|E| slice (centred.xmf)")
    print("PASS")


if __name__ == "__main__":
    main()
