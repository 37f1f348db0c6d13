"""A shipped scan or spmv deck (inputs/), run small on 2 ranks, then its checker on the output
as written (no /input, no matrix.h5 unless the deck writes them): it must say OK; then on a copy
whose result dataset has one element changed: it must say MISMATCH (exit 1).
usage: shipped_check_test.py TESSERA TESSERA_POST DECK WORKDIR CHECKER DATASET [--set k=v ...]"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

tessera, post, deck, work, checker, name = sys.argv[1:7]
sets = sys.argv[7:]
out = os.path.join(work, "run")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none",
           OMP_NUM_THREADS="1")
mpiexec = os.environ.get("MPIEXEC") or shutil.which("mpiexec") or "mpiexec"
cmd = [mpiexec, "-n", "2", "--oversubscribe", tessera, "run", deck, "--set", f"run.output_dir={out}"] + sets
r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=120)
if r.returncode != 0:
    print(r.stdout, r.stderr)
    sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}")
result = os.path.join(out, "scan.h5" if checker == "scan-verify" else "spmv.h5")


def check(path, code):
    p = subprocess.run([sys.executable, post, checker, path], capture_output=True, text=True, timeout=120)
    print(p.stdout + p.stderr)
    if p.returncode != code:
        sys.exit(f"FAIL: {checker} {path}: exit {p.returncode}, expected {code}")
    return p.stdout


text = check(result, 0)
if not text.rstrip().endswith("OK"):
    sys.exit("FAIL: no OK")
altered = os.path.join(out, "altered.h5")  # beside the run's other files (matrix.h5)
shutil.copy(result, altered)
with h5py.File(altered, "r+") as f:
    ds = f[name]
    i = len(ds) // 2 + 1
    v = ds[i]
    ds[i] = v + (1 if ds.dtype.kind in "iu" else max(1.0, abs(float(v))))
    print(f"altered {name}[{i}]: {v} -> {ds[i]}")
text = check(altered, 1)
if "MISMATCH" not in text:
    sys.exit("FAIL: no MISMATCH")
print(f"{os.path.basename(deck)}: {checker}: OK on the output, MISMATCH on one altered element of {name}")
