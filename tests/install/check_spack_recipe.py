#!/usr/bin/python3
"""packaging/spack/package.py parses, is a CMakePackage + CudaPackage, maps cuda_arch to
CMAKE_CUDA_ARCHITECTURES, has the cuda and nccl variants and a smoke test running a shipped deck,
and depends on exactly the packages the CMake build looks for with find_package().
Spack itself is not installed here: this checks the recipe's text, not a Spack build.
    check_spack_recipe.py SOURCE_DIR"""
import ast
import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1])
recipe_path = src / "packaging" / "spack" / "package.py"
recipe = recipe_path.read_text()
tree = ast.parse(recipe, str(recipe_path))

# find_package() name -> Spack package; None: provided by the compiler or the system, no package.
SPACK_NAME = {
    "MPI": "mpi", "HDF5": "hdf5", "tomlplusplus": "tomlplusplus", "PkgConfig": "pkgconfig",
    "CLI11": "cli11", "fmt": "fmt", "spdlog": "spdlog", "GTest": "googletest", "CUDAToolkit": "cuda",
    "OpenMP": None, "Threads": None, "Git": None,  # OpenMP: the compiler; Git: only for --version's commit
}
# Dependencies with no find_package(): the build tool itself, and NCCL (find_library in TesseraCuda.cmake).
NOT_FROM_FIND_PACKAGE = {"cmake", "nccl"}

problems = []
cmake_files = [src / "CMakeLists.txt", *sorted((src / "cmake").glob("*.cmake"))]
found = set()
for f in cmake_files:
    for name in re.findall(r"^\s*find_package\(\s*([A-Za-z0-9_+]+)", f.read_text(), re.M):
        found.add(name)
for name in sorted(found - SPACK_NAME.keys()):
    problems.append(f"find_package({name}) in the CMake build has no entry here: add it to the recipe and SPACK_NAME")
expected = {SPACK_NAME[n] for n in found if SPACK_NAME.get(n)} | NOT_FROM_FIND_PACKAGE
if "nccl" not in (src / "cmake" / "TesseraCuda.cmake").read_text().lower():
    expected.discard("nccl")

cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tessera"), None)
if cls is None:
    sys.exit(f"{recipe_path}: no class Tessera")
bases = {b.id for b in cls.bases if isinstance(b, ast.Name)}
for base in ("CMakePackage", "CudaPackage"):
    if base not in bases:
        problems.append(f"class Tessera does not derive from {base}")


def calls(name):
    return [n for n in ast.walk(cls) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name]


depends = set()
for call in calls("depends_on"):
    spec = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else ""
    depends.add(re.match(r"[a-z0-9-]+", spec).group(0))
for missing in sorted(expected - depends):
    problems.append(f"the recipe lacks depends_on(\"{missing}\")")
for extra in sorted(depends - expected):
    problems.append(f"the recipe depends on \"{extra}\", which the CMake build never looks for")
if not any(isinstance(c.args[0], ast.Constant) and c.args[0].value == "hdf5+mpi" for c in calls("depends_on")):
    problems.append("hdf5 must be depends_on(\"hdf5+mpi\"): tessera needs parallel HDF5")

variants = {c.args[0].value for c in calls("variant") if c.args and isinstance(c.args[0], ast.Constant)}
if "nccl" not in variants:
    problems.append("no nccl variant (cuda comes from CudaPackage)")
for needle, why in (("CMAKE_CUDA_ARCHITECTURES", "cuda_arch is not passed as CMAKE_CUDA_ARCHITECTURES"),
                    ("cuda_arch", "cmake_args does not read the cuda_arch variant"),
                    ("TESSERA_CUDA", "cmake_args does not set TESSERA_CUDA")):
    if needle not in recipe:
        problems.append(why)

tests = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
decks = set(re.findall(r'"([A-Za-z0-9_/]+\.toml)"', "\n".join(ast.get_source_segment(recipe, t) for t in tests)))
if not decks:
    problems.append("no smoke test (a test_* method) running a shipped deck")
for deck in sorted(decks):
    if not (src / "inputs" / deck).is_file():
        problems.append(f"the smoke test runs {deck}, which is not in inputs/")

if problems:
    print("\n".join(f"{recipe_path}: {p}" for p in problems))
    sys.exit(1)
print(f"OK: {recipe_path.name} parses; depends on {', '.join(sorted(depends))} "
      f"(CMake find_package: {', '.join(sorted(found))}); smoke test runs {', '.join(sorted(decks))}")
