"""Unit tests of tools/tessera_post on small synthetic files whose answers are known exactly:
plot placement and names, the fdtd slice's thin axis and colour scale, spectra (band and peak
markers), the energy after a source (drift or loss), the nbody image's pixels and extent, the
pairing of benchmark rows across rank counts and the roofline's layout.

    /usr/bin/python3 tests/tools/test_post.py REPO
"""
import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

import h5py
import numpy as np

REPO = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(REPO, "tools"))

from tessera_post import bench, fdtd, h5files, nbody  # noqa: E402
from tessera_post.cli import UsageError  # noqa: E402


def run_quietly(fn, args):
    """Runs a subcommand; returns (printed text, [(figure, path)] it would have saved)."""
    saved = []
    keep = (fdtd.save, nbody.save, bench.save, bench.save_as_laid_out)

    def grab(fig, path):
        saved.append((fig, path))

    fdtd.save = nbody.save = bench.save = bench.save_as_laid_out = grab
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            fn(args)
    finally:
        fdtd.save, nbody.save, bench.save, bench.save_as_laid_out = keep
    return out.getvalue(), saved


def columns_attr(names):
    return np.array([n.encode() for n in names])


class Workspace(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.run_dir = os.path.join(self._tmp.name, "cavity_run")
        os.makedirs(self.run_dir)

    def tearDown(self):
        self._tmp.cleanup()


class PlotPath(Workspace):
    def test_beside_the_input_named_after_run_input_and_plot(self):
        path = os.path.join(self.run_dir, "probes.h5")
        self.assertEqual(h5files.plot_path(None, path, "spectra"),
                         os.path.join(self.run_dir, "cavity_run_probes_spectra.png"))
        self.assertEqual(h5files.plot_path("x.png", path, "spectra"), "x.png")
        # A relative input gives a relative path beside it; benchmark JSON names its run itself.
        self.assertEqual(h5files.plot_path(None, "out/run1/fields_00000010.h5", "Ez_z4"),
                         os.path.join("out", "run1", "run1_fields_00000010_Ez_z4.png"))
        self.assertEqual(h5files.plot_path(None, "bench/h100_fdtd.json", "roofline", run_named=False),
                         os.path.join("bench", "h100_fdtd_roofline.png"))


class FdtdSlice(Workspace):
    def plane(self, name="plane_00000100.h5"):
        """A z plane (thin along z) of Ez, 40 x 30 cells: a wave of amplitude 1 and a source cell of 1e4."""
        path = os.path.join(self.run_dir, name)
        x = np.arange(40)
        y = np.arange(30)
        ez = np.sin(2 * np.pi * x[None, :] / 10.0) * np.cos(2 * np.pi * y[:, None] / 15.0)
        ez[15, 20] = 1e4
        with h5py.File(path, "w") as f:
            f["Ez"] = ez[None, :, :].astype(np.float32)  # (nz, ny, nx)
            f.attrs["cell_size"] = [1e-3, 1e-3, 1e-3]
            f.attrs["first_cell"] = np.array([0, 0, 16], dtype=np.int64)
            f.attrs["stride"] = np.array([1, 1, 1], dtype=np.int64)
            f.attrs["step"] = 100
            f.attrs["time"] = 1e-10
            f.attrs["time_h"] = 0.99e-10
        return path, ez

    def args(self, path, **kw):
        a = dict(fields=path, component="Ez", axis=None, index=None, clip=99.5, scale="linear", output=None)
        a.update(kw)
        return argparse.Namespace(**a)

    def test_a_plane_is_sliced_along_its_thin_axis_beside_its_file(self):
        path, ez = self.plane()
        text, saved = run_quietly(fdtd.slice_, self.args(path))
        self.assertIn("Ez at z index 16 (z = 16.5 mm): 40 x 30 values (x x y)", text)
        self.assertEqual(saved[0][1], os.path.join(self.run_dir, "cavity_run_plane_00000100_Ez_z16.png"))

    def test_another_axis_of_a_plane_is_refused_naming_the_thin_one(self):
        path, _ = self.plane()
        with self.assertRaises(UsageError) as e:
            run_quietly(fdtd.slice_, self.args(path, axis="x"))
        self.assertIn("holds a single z plane (z index 16), whose x slices are lines: use --axis z", str(e.exception))

    def test_the_colour_limit_is_a_percentile_so_the_source_does_not_swamp_the_wave(self):
        path, ez = self.plane()
        text, saved = run_quietly(fdtd.slice_, self.args(path))
        image = saved[0][0].axes[0].images[0]
        level = float(np.percentile(np.abs(ez.astype(np.float32).astype(np.float64)), 99.5))
        self.assertLess(level, 2.0)  # the wave's scale, not the source's 1e4
        self.assertAlmostEqual(image.norm.vmax, level, places=6)
        self.assertAlmostEqual(image.norm.vmin, -level, places=6)
        self.assertIn("the 99.5th percentile of |Ez| (largest 1e+04)", text)
        beyond = int(np.count_nonzero(np.abs(ez) > level))
        self.assertIn(f"; {beyond} value(s) ", text)

    def test_clip_100_is_the_largest_value_and_symlog_reaches_it(self):
        path, _ = self.plane()
        _, saved = run_quietly(fdtd.slice_, self.args(path, clip=100.0))
        self.assertAlmostEqual(saved[0][0].axes[0].images[0].norm.vmax, 1e4)
        text, saved = run_quietly(fdtd.slice_, self.args(path, scale="symlog"))
        norm = saved[0][0].axes[0].images[0].norm
        self.assertAlmostEqual(norm.vmax, 1e4)
        self.assertIn("colour scale: symlog up to +-1e+04 V/m", text)

    def test_a_volume_is_sliced_along_z_by_default(self):
        path = os.path.join(self.run_dir, "fields_00000000.h5")
        with h5py.File(path, "w") as f:
            f["Ez"] = np.random.default_rng(1).standard_normal((6, 5, 4)).astype(np.float32)
            f.attrs["cell_size"] = [1e-3, 1e-3, 1e-3]
        text, _ = run_quietly(fdtd.slice_, self.args(path))
        self.assertIn("Ez at z index 3 ", text)
        self.assertIn("4 x 5 values (x x y)", text)


class FdtdProbes(Workspace):
    def probes(self, signal_fn, n=4000, dt=1e-12):
        path = os.path.join(self.run_dir, "probes.h5")
        t = np.arange(n) * dt
        with h5py.File(path, "w") as f:
            f["probes"] = np.column_stack([np.arange(n), t, signal_fn(t)])
            f["probes"].attrs["columns"] = columns_attr(["step", "time", "p.Ez"])
        return path

    def args(self, path, **kw):
        a = dict(probes=path, column=None, threshold=0.02, max_peaks=8, fmax=0.0, pad=8, output=None)
        a.update(kw)
        return argparse.Namespace(**a)

    def test_band_ends_where_the_spectrum_does_and_peaks_are_marked(self):
        # Two decaying tones, 5 and 8 GHz, sampled every 1 ps (Nyquist 500 GHz).
        path = self.probes(lambda t: np.exp(-t / 1.5e-9) * (np.sin(2 * np.pi * 5e9 * t)
                                                              + 0.6 * np.sin(2 * np.pi * 8e9 * t)))
        text, saved = run_quietly(fdtd.probes, self.args(path))
        band = [line for line in text.splitlines() if line.startswith("spectrum to ")][0]
        fmax = float(band.split()[2])
        self.assertGreater(fmax, 8e9)
        self.assertLess(fmax, 100e9)  # far below Nyquist
        self.assertIn("p.Ez: first resonance 5", text)
        fig, where = saved[0]
        self.assertEqual(where, os.path.join(self.run_dir, "cavity_run_probes_spectra.png"))
        spectrum = fig.axes[1]
        markers = [line for line in spectrum.lines if line.get_marker() == "v"]
        self.assertEqual(len(markers), 1)
        peaks_ghz = sorted(markers[0].get_xdata())
        self.assertEqual(len(peaks_ghz), 2)
        self.assertAlmostEqual(peaks_ghz[0], 5.0, delta=0.05)
        self.assertAlmostEqual(peaks_ghz[1], 8.0, delta=0.05)
        self.assertAlmostEqual(spectrum.get_xlim()[1], fmax / 1e9, delta=1e-3 * fmax / 1e9)

    def test_fmax_given_is_used(self):
        path = self.probes(lambda t: np.sin(2 * np.pi * 5e9 * t) * np.exp(-t / 1e-9))
        text, saved = run_quietly(fdtd.probes, self.args(path, fmax=20e9))
        self.assertIn("spectrum to 2e+10 Hz (--fmax)", text)
        self.assertAlmostEqual(saved[0][0].axes[1].get_xlim()[1], 20.0)


class FdtdEnergy(Workspace):
    def energy(self, total):
        path = os.path.join(self.run_dir, "probes.h5")
        n = len(total)
        t = np.arange(n) * 1e-11
        with h5py.File(path, "w") as f:
            f["energy"] = np.column_stack([np.arange(n) * 10, t, 0.5 * total, 0.5 * total, total])
            f["energy"].attrs["columns"] = columns_attr(["step", "time", "electric", "magnetic", "total"])
        return argparse.Namespace(probes=path, source_end=None, output=None)

    def test_energy_leaving_through_absorbing_faces_is_a_loss_not_a_drift(self):
        w = np.concatenate([np.linspace(0, 1, 11), np.exp(-np.arange(1, 30) / 5.0)])
        text, saved = run_quietly(fdtd.energy, self.energy(w))
        self.assertIn("energy leaving the domain: ", text)
        self.assertIn("a loss, not a drift of the scheme", text)
        self.assertNotIn("drift:", text)
        self.assertEqual(saved[0][1], os.path.join(self.run_dir, "cavity_run_probes_energy.png"))
        self.assertIn("leaving", saved[0][0].axes[1].get_title())

    def test_a_closed_lossless_domain_shows_its_drift(self):
        w = np.concatenate([np.linspace(0, 1, 11), 1 + 1e-7 * np.sin(np.arange(1, 30))])
        text, saved = run_quietly(fdtd.energy, self.energy(w))
        self.assertIn("drift: |W - W_end|/W_end stays within ", text)
        self.assertNotIn("leaving", text)
        self.assertIn("drift", saved[0][0].axes[1].get_title())


class NbodyDensity(Workspace):
    def snapshot(self, x):
        path = os.path.join(self.run_dir, "snapshot_0003.h5")
        n = len(x)
        with h5py.File(path, "w") as f:
            h = f.create_group("Header")
            h.attrs["NumPart_Total"] = np.array([0, n, 0, 0, 0, 0], dtype=np.uint32)
            h.attrs["MassTable"] = np.zeros(6)
            h.attrs["Time"] = 2.5
            g = f.create_group("PartType1")
            g["Coordinates"] = x
            g["Masses"] = np.full(n, 1.0 / n)
        return path

    def test_pixels_from_n_and_extent_from_every_body(self):
        rng = np.random.default_rng(3)
        x = rng.standard_normal((3999, 3)) * 0.5
        x = np.vstack([x, [[40.0, -3.0, 0.0]]])  # one body far out: 1/4000 of the mass
        path = self.snapshot(x)
        args = argparse.Namespace(snapshot=path, axis="z", bins=None, extent=0.0, part_type=None, output=None)
        text, saved = run_quietly(nbody.density, args)
        self.assertIn("projected along z: 126 x 126 pixels (from N = 4000; --bins sets it)", text)  # 2 sqrt(4000)
        image = saved[0][0].axes[0].images[0]
        left, right, bottom, top = image.get_extent()
        # Framed by the cluster (90th percentile), not by the outlier at x = 40: the cluster
        # (sigma 0.5) fills the frame.
        self.assertLess(right, 3.0)
        self.assertGreater(right, 1.0)
        self.assertAlmostEqual(right - left, top - bottom)
        self.assertIn("x [code length]", saved[0][0].axes[0].get_xlabel())
        self.assertEqual(saved[0][1], os.path.join(self.run_dir, "cavity_run_snapshot_0003_density_z.png"))

    def test_pixels_stay_within_64_and_512(self):
        rng = np.random.default_rng(4)
        path = self.snapshot(rng.standard_normal((100, 3)))
        args = argparse.Namespace(snapshot=path, axis="x", bins=None, extent=0.0, part_type=None, output=None)
        text, _ = run_quietly(nbody.density, args)
        self.assertIn("64 x 64 pixels (from N = 100", text)


class BenchPairing(unittest.TestCase):
    @staticmethod
    def report(ranks, rows):
        return {"title": "t", "ranks": ranks, "rows": [dict(name=n, size=s, seconds=t, rate=r, unit=u, fraction=0)
                                                       for n, s, t, r, u in rows]}

    def test_weak_rows_pair_across_rank_counts_without_the_one_rank_baselines(self):
        p1 = self.report(1, [("step pec vacuum", "64^3", 0.01, 26.2, "G cell-updates/s"),
                             ("weak host P=1", "64^3/rank", 0.02, 13.1, "G cell-updates/s")])
        p2 = self.report(2, [("step pec vacuum", "64^3", 0.011, 23.8, "G cell-updates/s"),
                             ("weak host P=2", "64^3/rank", 0.025, 10.5, "G cell-updates/s")])
        series = bench.pair_rows([p1, p2])
        self.assertEqual(set(series), {("weak host", "64^3/rank")})
        (pa, ea), (pb, eb) = series[("weak host", "64^3/rank")]
        self.assertEqual((pa, pb), (1, 2))
        self.assertAlmostEqual(ea, 1.0)
        self.assertAlmostEqual(eb, 0.8)  # t1 / t2: the work per rank is fixed

    def test_strong_rows_and_names_with_text_after_p(self):
        p1 = self.report(1, [("ring/host P=1", "1M", 1.0, 1.0, "G interactions/s per rank"),
                             ("dist cpu P=1, totals on host", "1M/rank", 0.010, 0.1, "G elements/s")])
        p4 = self.report(4, [("ring/host P=4", "1M", 0.3125, 0.8, "G interactions/s per rank"),
                             ("dist cpu P=4, totals on host", "1M/rank", 0.0125, 0.32, "G elements/s")])
        series = bench.pair_rows([p1, p4])
        self.assertAlmostEqual(series[("ring/host", "1M")][1][1], 0.8)  # t1 / (4 t4)
        self.assertAlmostEqual(series[("dist cpu, totals on host", "1M/rank")][1][1], 0.8)

    def test_rates_when_times_are_missing(self):
        p1 = self.report(1, [("ring/nccl", "1M", 0, 100.0, "G interactions/s")])
        p2 = self.report(2, [("ring/nccl", "1M", 0, 180.0, "G interactions/s")])
        self.assertAlmostEqual(bench.pair_rows([p1, p2])[("ring/nccl", "1M")][1][1], 0.9)


class Roofline(unittest.TestCase):
    def test_long_labels_and_the_title_lie_inside_the_figure(self):
        # Wider than the old fixed 7-inch figure could hold: its labels began left of the figure.
        rows = [dict(name="dist lookback P=4, totals on nccl, a long case name as the scan bench writes them, "
                          "and then some more words to be long", size="2^28/rank", fraction=0.93),
                dict(name="ring/nccl P=4", size="1M", fraction=0.5)]
        report = {"title": "tessera bench scan on a device with a long name (4 ranks)", "limit": "bytes", "rows": rows}
        fig = bench.roofline_figure(h5files.pyplot(), report, rows)
        fig.tight_layout()
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        width = fig.get_size_inches()[0] * fig.dpi
        ax = fig.axes[0]
        for artist in list(ax.get_yticklabels()) + [ax.title, ax.xaxis.label]:
            box = artist.get_window_extent(renderer)
            self.assertGreaterEqual(box.x0, 0, artist.get_text())
            self.assertLessEqual(box.x1, width + 0.5, artist.get_text())


if __name__ == "__main__":
    unittest.main(verbosity=2)
