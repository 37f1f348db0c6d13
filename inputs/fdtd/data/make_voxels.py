#!/usr/bin/env python3
"""Writes photonic_slab.h5, the voxel map of inputs/fdtd/voxels_photonic_slab.toml.

A photonic crystal slab, as a scanned or designed structure would come: a 60 x 60 x 6 grid of
0.5 mm voxels (30 x 30 x 3 mm) of material numbers, dataset "materials", indexed [z][y][x]
(x fastest, as tessera writes its own volumes):
  0  air (the deck names it vacuum),
  1  the slab (the deck's "slab", eps_r 9),
  2  a lossy defect in the middle (the deck's "absorber").
A square lattice of round air holes, period 3 mm, radius 1 mm, with the middle hole (at 15, 15 mm)
filled by the absorber. uint8, uncompressed: 21.6 kB.

    /usr/bin/python3 inputs/fdtd/data/make_voxels.py    (rewrites photonic_slab.h5 beside it)
"""
import os

import h5py
import numpy as np

N, NZ, VOXEL = 60, 6, 0.5e-3
PERIOD, RADIUS = 3e-3, 1e-3


def slab():
    centre = (np.arange(N) + 0.5) * VOXEL  # voxel centres, m
    x, y = np.meshgrid(centre, centre, indexing="xy")  # [y][x]
    # Distance to the nearest hole centre (holes at m PERIOD; the middle one at 15 mm).
    dx = ((x + PERIOD / 2) % PERIOD) - PERIOD / 2
    dy = ((y + PERIOD / 2) % PERIOD) - PERIOD / 2
    hole = dx ** 2 + dy ** 2 <= RADIUS ** 2
    middle = (np.abs(x - N * VOXEL / 2) <= PERIOD / 2) & (np.abs(y - N * VOXEL / 2) <= PERIOD / 2)
    plane = np.where(hole, np.where(middle, 2, 0), 1).astype(np.uint8)
    return np.broadcast_to(plane, (NZ, N, N)).copy()


if __name__ == "__main__":
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "photonic_slab.h5")
    with h5py.File(path, "w") as f:
        d = f.create_dataset("materials", data=slab())
        d.attrs["materials"] = ["vacuum", "slab", "absorber"]
        d.attrs["voxel_size"] = [VOXEL] * 3
    print(f"wrote {path}")
