"""xvfb-run -a pvpython docs/images/render_fdtd_materials.py RUN_DIR PNG

Renders docs/images/fdtd_voxels_paraview.png from a run of inputs/fdtd/voxels_photonic_slab.toml
(tessera run ... --set run.steps=1 is enough): materials.xmf opened as a user would, the cells
of material index >= 2 (the slab and the absorber) kept by a Threshold and coloured by material
(vacuum 0 and pec 1 are left out), with the domain's outline."""
import sys

from paraview.simple import (ColorBy, CreateView, GetColorTransferFunction, GetScalarBar, OpenDataFile, Outline,
                             Render, SaveScreenshot, Show, Threshold)

run, png = sys.argv[1], sys.argv[2]
grid = OpenDataFile(run + "/materials.xmf")
view = CreateView("RenderView")
view.ViewSize = [900, 560]
view.OrientationAxesVisibility = 1
view.Background = [1, 1, 1]
try:
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
solid = Threshold(Input=grid)
solid.Scalars = ["CELLS", "material"]
try:
    solid.LowerThreshold, solid.UpperThreshold = 2, 3
except AttributeError:
    solid.ThresholdRange = [2, 3]
shown = Show(solid, view)
ColorBy(shown, ("CELLS", "material"))
shown.SetScalarBarVisibility(view, True)
lut = GetColorTransferFunction("material")
lut.ApplyPreset("Rainbow Uniform", True)
lut.RescaleTransferFunction(2, 3)
bar = GetScalarBar(lut, view)
bar.Title = "material (2 slab, 3 absorber)"
bar.ComponentTitle = ""
bar.TitleColor = bar.LabelColor = [0, 0, 0]
bar.RangeLabelFormat = "%.0f"
box = Show(Outline(Input=grid), view)
box.AmbientColor = box.DiffuseColor = [0, 0, 0]
view.CameraPosition = [0.062, -0.03, 0.05]
view.CameraFocalPoint = [0.02, 0.02, 0.015]
view.CameraViewUp = [0, 0, 1]
Render(view)
SaveScreenshot(png, view, ImageResolution=[900, 560])
print("wrote " + png)
