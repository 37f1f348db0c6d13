# Copyright (c) the tessera developers. SPDX-License-Identifier: BSD-3-Clause
"""Spack recipe for tessera.

Put this file in a Spack package repository as packages/tessera/package.py, then
    spack install tessera              # CPU only
    spack install tessera +cuda cuda_arch=90 +nccl
From a checkout instead of the repository URL:
    spack develop --path /path/to/tessera tessera@main && spack install tessera@main
"""

import os

from spack.package import *


class Tessera(CMakePackage, CudaPackage):
    """N-body, FDTD, scan, BFS and SpMV/CG on one to many GPUs over MPI, with parallel HDF5
    outputs and checkpoints; every solver also runs on CPUs (OpenMP)."""

    homepage = "https://github.com/tessera-developers/tessera"
    # The repository address is the one place a site may need to change (tessera has no
    # published release tarballs yet); `spack develop` above needs none.
    git = "https://github.com/tessera-developers/tessera.git"

    maintainers("tessera-developers")
    license("BSD-3-Clause")

    version("main", branch="main")

    variant("nccl", default=True, when="+cuda", description="NCCL transport between GPUs")

    # One entry per find_package() of the CMake build (tests/install checks the two agree).
    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")  # toml++ without its CMake config
    depends_on("mpi")
    depends_on("hdf5+mpi")  # parallel HDF5: every output is written collectively
    depends_on("tomlplusplus@3:")
    depends_on("cli11@2:")
    depends_on("spdlog")
    depends_on("fmt@9:")
    depends_on("googletest", type="test")
    depends_on("nccl", when="+nccl")
    depends_on("cuda@12.8:", when="+cuda")  # nvcc with C++20; the oldest release supported (docs/install.md)

    conflicts("%gcc@:10", msg="tessera is C++20")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("TESSERA_BUILD_TESTS", self.run_tests),
            self.define("TESSERA_CUDA", "ON" if spec.satisfies("+cuda") else "OFF"),
            self.define("MPI_C_COMPILER", spec["mpi"].mpicc),
            self.define("HDF5_ROOT", spec["hdf5"].prefix),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CUDA_COMPILER", spec["cuda"].prefix.bin.nvcc))
            archs = spec.variants["cuda_arch"].value
            if archs and archs[0] != "none":
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        if spec.satisfies("+nccl"):
            args.append(self.define("NCCL_INCLUDE_DIR", spec["nccl"].prefix.include))
            args.append(self.define("NCCL_LIBRARY", spec["nccl"].libs[0]))
        return args

    def setup_run_environment(self, env):
        env.set("TESSERA_HOME", self.prefix.share.tessera)

    def test_demo(self):
        """run the shipped demo deck on 2 ranks (CPU) and check its outputs"""
        mpiexec = which(self.spec["mpi"].prefix.bin.mpiexec, self.spec["mpi"].prefix.bin.mpirun)
        deck = join_path(self.prefix.share.tessera.inputs, "demo.toml")
        out = mpiexec(
            "-n", "2", self.prefix.bin.tessera, "run", deck, "--backend", "cpu",
            "--set", "run.steps=20", output=str.split, error=str.split,
        )
        assert "outputs in output/nbody/demo" in out
        assert os.path.isfile(join_path("output", "nbody", "demo", "diagnostics.h5"))

    def test_version(self):
        """tessera --version names this install's prefix"""
        out = Executable(self.prefix.bin.tessera)("--version", output=str.split, error=str.split)
        assert self.prefix in out
