"""`tessera run --profile` on 2 ranks for every solver (docs/user-guide.md, "Where the time goes").

For each run it asserts that
  - the table appears on the log, one row per region, with the wall time;
  - the top-level regions' inclusive times add up to 90-100% of the wall time, or leave out at
    most 10 ms of it (from the numbers and as the closing line says);
  - the run.step region's calls equal the steps the `done:` line says were run;
  - OUTPUT_DIR/profile.h5 holds the same numbers (names, calls, times, % of wall, wall time) with
    units on every column;
  - every file the run published (outputs and checkpoints; not the run directory's own
    tessera_run.toml and lock) has a "wrote"/"checkpoint written:" log line with its path
    relative to the working directory, and the log's last line names the output directory.
It checks itself too: a table with a changed number must fail the comparison with the file.

usage: check_profile.py TESSERA DECKS_DIR WORKDIR MPIEXEC NP_FLAG "PREFLAGS"
Run with /usr/bin/python3 (Debian's h5py).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

import h5py
import numpy as np

tessera, decks, workdir, mpiexec, np_flag, preflags = sys.argv[1:7]
if os.path.isdir(workdir):
    shutil.rmtree(workdir)
os.makedirs(workdir)

# name: (deck, overrides)
RUNS = {
    "nbody": ("nbody_plummer.toml", ["run.steps=40", "output.every=20", "diagnostics.every=10"]),
    "fdtd": ("fdtd_cavity.toml", ["run.steps=200", "output.every=100", "diagnostics.every=50"]),
    "scan": ("scan_float32.toml", ["run.steps=3"]),
    "bfs": ("bfs_kronecker.toml", ["bfs.root_count=4"]),
    "spmv": ("spmv_cg.toml", ["spmv.cg.rhs=manufactured"]),
}

NUM = r"([0-9]+\.[0-9]+)"
ROW = re.compile(r"^([* ]) (\S+)\s+([0-9]+(?:-[0-9]+)?)\s+" + r"\s+".join([NUM, NUM, NUM, r"([0-9]+)"] * 2) +
                 r"\s+" + NUM + r"$")


def parse_table(log):
    """(wall mean, {name: fields}, closing %) from the log's table."""
    m = re.search(r"profile over 2 rank\(s\), wall time ([0-9.]+) s \(mean; max ([0-9.]+) s on rank ([0-9]+)\)", log)
    assert m, "no profile table in the log"
    wall = float(m.group(1))
    rows = {}
    after = log[m.end():].splitlines()
    for line in after:
        r = ROW.match(line)
        if r:
            g = r.groups()
            calls = g[2].split("-")
            rows[g[1]] = {
                "top": g[0] == "*",
                "calls_min": float(calls[0]), "calls_max": float(calls[-1]),
                "inclusive": [float(g[3]), float(g[4]), float(g[5]), int(g[6])],
                "exclusive": [float(g[7]), float(g[8]), float(g[9]), int(g[10])],
                "percent": float(g[11]),
            }
        elif line.startswith("* top level:"):
            closing = float(re.search(r"together ([0-9.]+)%", line).group(1))
            return wall, rows, closing
    raise AssertionError("the table has no closing line")


def compare_with_file(path, wall, rows):
    """Every way profile.h5 differs from the printed table (empty: none)."""
    found = []
    with h5py.File(path, "r") as f:
        d = f["regions"]
        cols = [c.decode() if isinstance(c, bytes) else c for c in d.attrs["columns"]]
        units = [u.decode() if isinstance(u, bytes) else u for u in d.attrs["units"]]
        names = [n.decode() if isinstance(n, bytes) else n for n in d.attrs["names"]]
        table = d[()]
        if len(units) != len(cols) or not all(units):
            found.append(f"regions: units {units} for columns {cols}")
        if units[cols.index("inclusive_mean")] != "s":
            found.append("inclusive_mean is not in s")
        w = f["wall_time"]
        if w.attrs["units"] not in ("s", b"s"):
            found.append("wall_time has no units s")
        if abs(w[1] - wall) > 1e-6:
            found.append(f"wall time {w[1]} in the file, {wall} in the table")
        if sorted(names) != sorted(rows):
            found.append(f"regions {names} in the file, {sorted(rows)} in the table")
            return found
        for i, name in enumerate(names):
            v = dict(zip(cols, table[i]))
            t = rows[name]
            want = {"calls_min": t["calls_min"], "calls_max": t["calls_max"], "percent_of_wall": t["percent"],
                    "top_level": 1.0 if t["top"] else 0.0}
            for k, s in (("inclusive", t["inclusive"]), ("exclusive", t["exclusive"])):
                want.update({f"{k}_min": s[0], f"{k}_mean": s[1], f"{k}_max": s[2], f"{k}_max_rank": s[3]})
            for k, x in want.items():
                tol = 0.006 if k == "percent_of_wall" else 6e-7
                if abs(v[k] - x) > tol:
                    found.append(f"{name}.{k}: {v[k]} in the file, {x} in the table")
    return found


env = dict(os.environ, OMP_NUM_THREADS="1")
for name, (deck, sets) in RUNS.items():
    out = os.path.join("runs", name)  # relative: the log must show it so
    cmd = [mpiexec, np_flag, "2", *shlex.split(preflags), tessera, "run", os.path.join(decks, deck), "--backend", "cpu",
           "--profile", "--overwrite", "--set", f"run.output_dir={out}", "--set", "checkpoint.at_end=true"]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True)
    log = r.stdout + r.stderr
    if r.returncode != 0:
        sys.exit(f"{name}: tessera failed ({r.returncode}):\n{' '.join(cmd)}\n{log}")
    try:
        wall, rows, closing = parse_table(log)
        top = [n for n, t in rows.items() if t["top"]]
        for phase in ("run.setup", "run.initialize", "run.step", "run.finish", "run.checkpoint"):
            assert phase in top, f"no top-level region {phase}: {top}"
        share = 100.0 * sum(rows[n]["inclusive"][1] for n in top) / wall
        # What the regions leave out is a fixed few milliseconds (MPI start, scheduling); on a
        # loaded machine that can pass 10% of these 0.02-0.08 s runs, so a short gap also passes.
        uncovered = wall * (100.0 - share) / 100.0
        assert share <= 100.0 + 1e-3 and (share >= 90.0 or uncovered <= 0.010), \
            f"top-level regions cover {share:.2f}% of the wall time ({1e3 * uncovered:.1f} ms left out)"
        assert abs(share - closing) < 0.05 * len(top), f"closing line says {closing}%, the rows {share:.2f}%"
        nested = [n for n in rows if not rows[n]["top"]]
        assert any(n.startswith(name + ".") or n.startswith("cg.") for n in nested), \
            f"no region of the solver's own: {sorted(rows)}"
        steps = int(re.search(r"done: step [0-9]+,(?: t = [^,]+,)? ([0-9]+) steps in", log).group(1))
        assert rows["run.step"]["calls_min"] == steps == rows["run.step"]["calls_max"], \
            f"run.step calls {rows['run.step']['calls_min']}-{rows['run.step']['calls_max']}, {steps} steps run"

        problems = compare_with_file(os.path.join(workdir, out, "profile.h5"), wall, rows)
        assert not problems, "profile.h5 differs from the table:\n  " + "\n  ".join(problems)
        # The comparison can fail: one number changed in the table.
        broken = {k: dict(v) for k, v in rows.items()}
        broken["run.step"]["inclusive"] = list(broken["run.step"]["inclusive"])
        broken["run.step"]["inclusive"][1] += 0.001
        assert compare_with_file(os.path.join(workdir, out, "profile.h5"), wall, broken), \
            "the file comparison passed a changed table"

        logged = set(re.findall(r"(?:wrote|checkpoint written:) (\S+)", log))
        own = {"tessera_run.toml", ".tessera.lock"}
        for root, _, files in os.walk(os.path.join(workdir, out)):
            for f in files:
                rel = os.path.relpath(os.path.join(root, f), workdir)
                if f not in own:
                    assert rel in logged, f"{rel} was published but no log line names it (logged: {sorted(logged)})"
        last = [l for l in log.splitlines() if l.startswith("[tessera]")][-1]
        assert last == f"[tessera] outputs in {out}", f"the last line does not name the output directory: {last!r}"
    except AssertionError as e:
        sys.exit(f"{name}: {e}\n--- log ---\n{log}")
    print(f"{name}: {len(rows)} regions, top level {share:.2f}% of {wall:.3f} s, {steps} steps, "
          f"{len(logged)} files logged")
print("profile: every solver's table, profile.h5 and file log lines check out")
