"""pvpython paraview_check.py OUT_DIR PNG_DIR: ParaView 5.11 opens what decks/paraview.toml wrote.

What a user does first: OpenDataFile on the file the run log names (fields_Ez.xmf; a staggered
volume writes one .xmf per component and no fields.xmf, which ParaView's default reader showed
as one grey box), a z slice coloured by a component. Checks (docs/fdtd.md, "Opening the fields
in ParaView"):
  - no fields.xmf; fields_Ez.xmf, fields_Hx.xmf, fields_Hy.xmf open with the default reader
    (Xdmf3 Reader S) as one plain grid each, at their own times (H half a step before E), with
    the Yee nodes' points and bounds (the high walls included) and field data "time";
  - the same files with the "XDMF Reader" and "Xdmf3 Reader (T)": the same grid;
  - centred.xmf (collocated, default reader): 3-component arrays E and H at the cell centres;
  - the periodic y wall: the Ez nodes at y = 20 mm equal those at y = 0;
  - slices of Ez (fields_Ez.xmf) and of E's X component (centred.xmf), each opened with the
    default reader: the slice's array range is not one value, and the rendered PNG read back
    has many colours and a large coloured (not grey) area.
Prints each check; exits 1 at the first failure.
"""
import os
import sys

from paraview import servermanager as sm
from paraview.simple import (ColorBy, CreateView, Delete, OpenDataFile, Render, SaveScreenshot, Show, Slice,
                             XDMFReader, Xdmf3ReaderT)
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
    got = leaves(fetch(s, time))
    values = np.concatenate([vtk_to_numpy(d.GetPointData().GetArray(array)).reshape(d.GetNumberOfPoints(), -1)
                             for _, d in got if d.GetPointData().GetArray(array) is not None])
    values = values[:, 0] if component in (None, "X") else np.linalg.norm(values, axis=1)
    if values.size == 0 or not np.ptp(values) > 0:
        fail(f"slice of {array}: the values span {values.min() if values.size else None} .. "
             f"{values.max() if values.size else None}: flat")
    ok(f"slice of {array} {component or ''}: {values.size} values over {values.min():.4g} .. {values.max():.4g}")
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


def open_default(path, expected_reader="Xdmf3ReaderS"):
    """OpenDataFile, as ParaView's File > Open does: the reader it picks by itself."""
    r = OpenDataFile(path)
    if r is None or r.GetXMLName() != expected_reader:
        fail(f"{path}: the default reader is {r.GetXMLName() if r else None}, expected {expected_reader}")
    return r


def main():
    out, png_dir = sys.argv[1], sys.argv[2]
    os.makedirs(png_dir, exist_ok=True)
    last = E_TIMES[-1]

    if os.path.exists(os.path.join(out, "fields.xmf")):
        fail("fields.xmf written: ParaView's default reader shows a file of several Yee grids as one grey box")
    ok("no fields.xmf: one .xmf per component")

    # ---- per-component files: one plain grid each, with every reader ----
    for name, times in (("Ez", E_TIMES), ("Hx", H_TIMES), ("Hy", H_TIMES)):
        path = os.path.join(out, f"fields_{name}.xmf")
        for what, r in (("default reader", open_default(path)), ("XDMF Reader", XDMFReader(FileNames=[path])),
                        ("Xdmf3 Reader T", Xdmf3ReaderT(FileName=[path]))):
            same_times(f"fields_{name}.xmf ({what})", r.TimestepValues, times)
            got = leaves(fetch(r, times[2]))
            if len(got) != 1:
                fail(f"fields_{name}.xmf ({what}): {len(got)} grids, expected 1")
            check_grid(f"fields_{name}.xmf ({what})", got[0][1], name, name, times[2])
            if int(field(got[0][1], "step")) != STEPS[2]:
                fail(f"fields_{name}.xmf ({what}): field data step {field(got[0][1], 'step')}, expected {STEPS[2]}")
            Delete(r)

    # The periodic y wall: Ez at y = 20 mm (from the other rank) equals Ez at y = 0, and is not 0.
    rez = open_default(os.path.join(out, "fields_Ez.xmf"))
    ez = leaves(fetch(rez, last))[0][1]
    a = vtk_to_numpy(ez.GetPointData().GetArray("Ez")).reshape(8, 11, 13)
    if not np.array_equal(a[:, 10, :], a[:, 0, :]) or not np.any(a[:, 0, :]):
        fail("Ez on the periodic high y wall differs from y = 0 (or is all zero)")
    if np.any(a[:, :, 12]) or np.any(a[:, :, 0]):
        fail("Ez on the PEC x walls is not zero")
    ok(f"Ez at y = 20 mm equals Ez at y = 0 (periodic, max |Ez| {np.abs(a).max():.4g} V/m); 0 on the x walls")

    # ---- centred.xmf (collocated), the default reader: E and H vectors on one grid ----
    rc = open_default(os.path.join(out, "centred.xmf"))
    same_times("centred.xmf (default reader)", rc.TimestepValues, E_TIMES)
    d = fetch(rc, last)
    check_grid("centred.xmf (default reader)", d, "centred", "E", last)
    for name in ("E", "H"):
        a = d.GetPointData().GetArray(name)
        if a is None or a.GetNumberOfComponents() != 3:
            fail(f"centred.xmf: {name} is not a 3-component point array")
    if abs(field(d, "time_h") - H_TIMES[-1]) > 1e-6 * DT:
        fail(f"centred.xmf: field data time_h = {field(d, 'time_h')}, expected {H_TIMES[-1]}")
    ok("centred.xmf: 3-component E and H, time_h half a step before time")

    # ---- render what a user opens: slices coloured by a component, default reader ----
    png = os.path.join(png_dir, "ez_slice.png")
    render_slice(rez, "Ez", None, png, last)
    check_png(png, "Ez slice (fields_Ez.xmf, default reader)")
    png = os.path.join(png_dir, "centred_slice.png")
    render_slice(rc, "E", "X", png, last)
    check_png(png, "E X slice (centred.xmf, default reader)")
    print("PASS")


if __name__ == "__main__":
    main()
