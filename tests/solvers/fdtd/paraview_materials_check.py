"""pvpython paraview_materials_check.py OUT_DIR PNG_DIR: ParaView opens the material grid that
decks/material_grid.toml wrote (materials.xmf, docs/fdtd.md "Looking at the material grid").

Checks: the default reader gives one grid of 16 x 12 x 10 cells (17 x 13 x 11 points) over
0 .. 16 x 12 x 10 mm with the cell arrays eps_x eps_y eps_z sigma material; material spans
0 .. 3 and eps_x 1 .. 4; a z slice coloured by material renders with several colours.
Prints each check; exits 1 at the first failure.
"""
import os
import sys

from paraview import servermanager as sm
from paraview.simple import ColorBy, CreateView, OpenDataFile, Render, SaveScreenshot, Show, Slice
from vtkmodules.vtkIOImage import vtkPNGReader
from vtkmodules.util.numpy_support import vtk_to_numpy
import numpy as np


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


out, png_dir = sys.argv[1], sys.argv[2]
os.makedirs(png_dir, exist_ok=True)
reader = OpenDataFile(os.path.join(out, "materials.xmf"))
if reader is None:
    fail("ParaView found no reader for materials.xmf")
reader.UpdatePipeline()
data = sm.Fetch(reader)
while data.IsA("vtkMultiBlockDataSet"):
    data = data.GetBlock(0)
if data.GetNumberOfCells() != 16 * 12 * 10 or data.GetNumberOfPoints() != 17 * 13 * 11:
    fail(f"{data.GetNumberOfCells()} cells, {data.GetNumberOfPoints()} points; expected 1920 and 2431")
bounds = data.GetBounds()
want = (0, 0.016, 0, 0.012, 0, 0.010)
if any(abs(a - b) > 1e-9 for a, b in zip(bounds, want)):
    fail(f"bounds {bounds}, expected {want}")
ok(f"{type(reader).__name__}: 1920 cells, bounds {tuple(round(b, 6) for b in bounds)} m")
cells = data.GetCellData()
names = sorted(cells.GetArrayName(i) for i in range(cells.GetNumberOfArrays()))
if names != ["eps_x", "eps_y", "eps_z", "material", "sigma"]:
    fail(f"cell arrays {names}")
material = vtk_to_numpy(cells.GetArray("material"))
eps = vtk_to_numpy(cells.GetArray("eps_x"))
if material.min() != 0 or material.max() != 3 or eps.min() != 1 or eps.max() != 4:
    fail(f"material {material.min()}..{material.max()}, eps_x {eps.min()}..{eps.max()}")
ok(f"cell arrays {names}; material 0..3, eps_x 1..4")

view = CreateView("RenderView")
view.ViewSize = [640, 480]
view.OrientationAxesVisibility = 0
cut = Slice(Input=reader)
cut.SliceType.Origin = [0.008, 0.006, 0.0045]
cut.SliceType.Normal = [0, 0, 1]
shown = Show(cut, view)
ColorBy(shown, ("CELLS", "material"))
shown.RescaleTransferFunctionToDataRange(True)
view.CameraPosition = [0.008, 0.006, 0.05]
view.CameraFocalPoint = [0.008, 0.006, 0.0045]
view.CameraViewUp = [0, 1, 0]
view.ResetCamera()
Render(view)
png = os.path.join(png_dir, "materials_slice.png")
SaveScreenshot(png, view, ImageResolution=[640, 480])
r = vtkPNGReader()
r.SetFileName(png)
r.Update()
img = vtk_to_numpy(r.GetOutput().GetPointData().GetScalars())
colours = len(np.unique(img[:, :3], axis=0))
if colours < 4:
    fail(f"{png}: {colours} colour(s)")
ok(f"{png}: a z slice coloured by material, {colours} colours")
print("paraview_materials_check: OK")
