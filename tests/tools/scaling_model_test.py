"""Test of `tessera-post scaling-model` (docs/scaling.md): the command writes its PNG, and the
model it evaluates (tools/tessera_post/scaling_model.py) gives efficiencies in (0, 1] that never
rise with P under strong scaling, and reproduces the 1-4 GPU measurements it was calibrated on;
docs/scaling.md carries the command's current "Model against the measurements" table.

usage: scaling_model_test.py PATH/TO/tools/tessera-post   (prints OK, exit 0; else exit 1)
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main(post):
    # 1. The command, as a user runs it: the tables, the check, and a real PNG.
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "scaling_model.png")
        run = subprocess.run([sys.executable, post, "scaling-model", "--check", "-o", png],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=100)
        print(run.stdout)
        if run.returncode != 0:
            fail(f"tessera-post scaling-model exited with {run.returncode}")
        for needle in ("### Stops paying", "### Largest problem per GPU", "strong scaling non-increasing in P: OK",
                       f"wrote {png}"):
            if needle not in run.stdout:
                fail(f"output lacks '{needle}'")
        output = run.stdout
        if not os.path.isfile(png) or os.path.getsize(png) < 10000:
            fail(f"{png}: missing or too small")
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                fail(f"{png}: not a PNG")

    # 2. The model itself, independently of the command's own --check.
    sys.path.insert(0, os.path.dirname(os.path.realpath(post)))
    from tessera_post import scaling_model as m

    curves = 0
    for gpu in m.GPUS:
        for solver in m.make(gpu):
            weak = [(p, solver.weak(p)) for p in m.RANKS]
            for p, pt in weak:
                if pt is not None and not 0 < pt.efficiency <= 1 + 1e-12:
                    fail(f"{gpu} {solver.name} weak: efficiency {pt.efficiency} at P = {p}")
            curves += 1
            for size in solver.strong_sizes:
                effs = [solver.strong(size, p).efficiency for p in m.RANKS]
                curves += 1
                for p, e in zip(m.RANKS, effs):
                    if not 0 < e <= 1 + 1e-12:
                        fail(f"{gpu} {solver.name} strong {size}: efficiency {e} at P = {p}")
                for p0, e0, p1, e1 in zip(m.RANKS, effs, m.RANKS[1:], effs[1:]):
                    if e1 > e0 + 1e-12:
                        fail(f"{gpu} {solver.name} strong {size}: {e0:.4f} at P = {p0} rises to {e1:.4f} at P = {p1}")
            if abs(solver.weak(1).efficiency - 1) > 1e-12:
                fail(f"{gpu} {solver.name}: weak efficiency at P = 1 is {solver.weak(1).efficiency}, not 1")

    # 3. Calibration: the measured points of docs/performance.md, within these tolerances.
    tolerance = {"nbody": 0.02, "fdtd": 0.02, "scan": 0.05, "bfs": 0.10, "spmv": 0.05}
    for solver, case, measured, model in m.validation():
        if abs(model - measured) > tolerance[solver] * abs(measured):
            fail(f"{solver} {case}: model {model:.3f} against measured {measured:.3f}")

    # 4. What the doc states that must stay true if parameters change: FDTD's halo stays hidden
    #    at 512^3 per GPU on 1024 GPUs, and BFS on two nodes is slower than on one (scale 26).
    fd = m.make("h100")[1]
    if fd.weak(1024).efficiency < 0.9:
        fail(f"fdtd weak at P = 1024: {fd.weak(1024).efficiency:.3f}")
    bfs = m.make("h100")[3]
    if bfs.step(26, 8).seconds <= bfs.step(26, 4).seconds:
        fail("bfs scale 26: 8 GPUs on 2 nodes no slower than 4 on one")
    # 5. The terms added on the 2026-11-28 measurements: the fused FDTD sweep pays its exchange
    #    (it is not overlapped), and a distributed SpMV product costs more than its local part.
    h200 = {s.name: s for s in m.make("h200")}
    fd2 = h200["fdtd"]
    if not fd2.weak(4, sweep="fused").efficiency < fd2.weak(4).efficiency - 0.05:
        fail("fdtd: the fused sweep's exchange is hidden at P = 4 (measured: 87.0% against 94.7% split)")
    sp = h200["spmv"]
    added = sp.product(406, 4) - sp.product(256, 1)
    if not 20e-6 < added < 60e-6:
        fail(f"spmv: the distributed product adds {added * 1e6:.0f} us at P = 4 (measured: +35 us at 6523e31)")

    # 6. docs/scaling.md shows the table the command prints now (regenerate it after a change).
    doc = os.path.join(os.path.dirname(os.path.realpath(post)), os.pardir, "docs", "scaling.md")
    if os.path.isfile(doc):
        with open(doc) as f:
            text = f.read()
        head = "### Model against the measurements in one node (H200)"
        rows = output.split(head, 1)[1].split("###", 1)[0].strip().splitlines()
        stale = [row for row in rows if row not in text]
        if stale:
            fail(f"{doc}: lacks {len(stale)} row(s) of the command's table '{head[4:]}', e.g. {stale[0]}")
    print(f"scaling model: {curves} curves checked, calibration within tolerance: OK")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1])
