#!/usr/bin/env python3
"""Makes the STL meshes of the shipped fdtd decks (numpy only; run with /usr/bin/python3).

    make_meshes.py                      writes torus.stl beside this script (inputs/fdtd/mesh_torus.toml)
    make_meshes.py --torus N OUT.stl    a finer torus of about N triangles (the set-up benchmark of
                                        docs/performance.md uses N = 1000000)

The torus (major radius 8, minor radius 3, in millimetres: the deck scales by 1e-3) is a grid of
nu x nv quads on the surface, each split into two triangles. Corners are computed once and
shared by index, so neighbouring triangles hold bitwise equal corners: the surface is closed,
as shape = "mesh" requires.
"""
import argparse
import os

import numpy as np


def torus(major, minor, nu, nv):
    u = 2 * np.pi * np.arange(nu) / nu
    v = 2 * np.pi * np.arange(nv) / nv
    uu, vv = np.meshgrid(u, v, indexing="ij")
    ring = major + minor * np.cos(vv)
    corners = np.stack([ring * np.cos(uu), ring * np.sin(uu), minor * np.sin(vv)], axis=-1).astype(np.float32)
    i, j = np.meshgrid(np.arange(nu), np.arange(nv), indexing="ij")
    i1, j1 = (i + 1) % nu, (j + 1) % nv
    a, b, c, d = corners[i, j], corners[i1, j], corners[i1, j1], corners[i, j1]
    # Two triangles per quad, wound so that their normals point out of the tube.
    tris = np.concatenate([np.stack([a, b, c], axis=-2).reshape(-1, 3, 3),
                           np.stack([a, c, d], axis=-2).reshape(-1, 3, 3)])
    return tris


def write_binary_stl(path, tris, name):
    e1, e2 = tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]
    n = np.cross(e1, e2)
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-30)
    rec = np.zeros(len(tris), dtype=[("normal", "<f4", 3), ("corners", "<f4", (3, 3)), ("attr", "<u2")])
    rec["normal"] = n
    rec["corners"] = tris
    with open(path, "wb") as f:
        f.write(name.encode()[:80].ljust(80, b" "))
        f.write(np.uint32(len(tris)).tobytes())
        f.write(rec.tobytes())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--torus", nargs=2, metavar=("N", "OUT"), help="a torus of about N triangles written to OUT")
    args = p.parse_args()
    if args.torus:
        n = int(args.torus[0])
        nv = max(3, int(round(np.sqrt(n / 2 * 3 / 8))))  # quads about square: nu / nv = 8 / 3
        nu = max(3, int(round(n / 2 / nv)))
        tris = torus(8.0, 3.0, nu, nv)
        write_binary_stl(args.torus[1], tris, f"torus R 8 r 3 mm, {nu} x {nv} quads (tessera make_meshes.py)")
        print(f"{args.torus[1]}: {len(tris)} triangles")
        return
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torus.stl")
    tris = torus(8.0, 3.0, 48, 18)
    write_binary_stl(out, tris, "torus R 8 r 3 mm, 48 x 18 quads (tessera make_meshes.py)")
    print(f"{out}: {len(tris)} triangles, {os.path.getsize(out)} bytes")


if __name__ == "__main__":
    main()
