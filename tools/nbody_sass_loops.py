#!/usr/bin/env python3
"""Issue slots per interaction in the inner loops of the N-body force kernels, read from the
sm_90 machine code without cuobjdump/nvdisasm (not installed on the build hosts).

    python3 tools/nbody_sass_loops.py --build build-nbody [--filter split_forces] [--json out.json]
    python3 tools/nbody_sass_loops.py --cubin forces.cubin

With --build, solvers/nbody/cuda/*.cu are compiled again with the build's own nvcc command
(compile_commands.json) plus -cubin. For every kernel the innermost loops (a backward branch
whose body holds no other backward branch) are listed with their instruction mix; a loop with
MUFU instructions is a force loop, and instructions / MUFU is its issue slots per interaction
(one MUFU.RSQ per interaction). "stall cycles" adds the stall counts of the control codes:
the cycles one warp alone needs per iteration, so stall cycles / instructions is how many
warps a scheduler needs to issue every cycle.

Decoding (Volta..Hopper, 128-bit instructions, checked against kernels of known shape):
opcode = low 12 bits, of which the low 9 name the operation and the top 3 the operand form;
BRA's byte offset from the next instruction is bits 16..23 (offset bits 2..9) and the signed
field from bit 34 up (offset bits 10..); stall count = bits 105..108; LDS width = bits 73..75.
"""
import argparse
import collections
import json
import os
import re
import shlex
import struct
import subprocess
import sys
import tempfile

OPS = {
    0x020: "FMUL", 0x021: "FADD", 0x023: "FFMA", 0x108: "MUFU", 0x184: "LDS", 0x188: "STS",
    0x181: "LDG", 0x186: "STG", 0x147: "BRA", 0x14d: "EXIT", 0x11d: "BAR", 0x010: "IADD3",
    0x011: "LEA", 0x00c: "ISETP", 0x024: "IMAD", 0x025: "IMAD.WIDE", 0x002: "MOV", 0x012: "LOP3",
    0x019: "SHF", 0x00b: "FSETP", 0x008: "FSEL", 0x007: "SEL", 0x031: "HFMA2", 0x1ae: "LDGSTS",
    0x1af: "LDGDEPBAR", 0x11a: "DEPBAR", 0x119: "S2R", 0x1c3: "S2UR", 0x118: "NOP", 0x0b9: "ULDC",
    0x182: "LDC", 0x090: "UIADD3", 0x091: "ULEA", 0x092: "ULOP3", 0x082: "UMOV",
    0x028: "DMUL", 0x029: "DADD", 0x02b: "DFMA",
}
FP32 = {"FMUL", "FADD", "FFMA"}
FP64 = {"DMUL", "DADD", "DFMA"}
LOOP_CONTROL = {"BRA", "IADD3", "ISETP", "LEA", "IMAD", "MOV", "UIADD3", "UISETP", "ULEA", "UMOV", "S2UR", "LOP3"}


def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = raw[shstrndx][4]
    out = []
    for s in raw:
        end = data.index(b"\0", names + s[0])
        out.append({"name": data[names + s[0]:end].decode(), "offset": s[4], "size": s[5], "info": s[7]})
    return out


def register_counts(data, secs):
    """Symbol index -> registers, from EIATTR_REGCOUNT (0x2f) records of .nv.info."""
    regs = {}
    for s in secs:
        if s["name"] != ".nv.info":
            continue
        p, end = s["offset"], s["offset"] + s["size"]
        while p < end:
            fmt, attr = data[p], data[p + 1]
            if fmt == 4:  # EIFMT_SVAL: u16 size, payload
                size, = struct.unpack_from("<H", data, p + 2)
                if attr == 0x2F and size == 8:
                    sym, value = struct.unpack_from("<II", data, p + 4)
                    regs[sym] = value
                p += 4 + size
            elif fmt == 3:  # EIFMT_HVAL: u16 value
                p += 4
            else:  # EIFMT_NVAL
                p += 2
    return regs


def decode(word_lo, word_hi):
    op = word_lo & 0xFFF
    name = OPS.get(op & 0x1FF, f"op{op:03x}")
    if name == "LDS":
        width = {4: 32, 5: 64, 6: 128}.get((word_hi >> 9) & 7)
        name = f"LDS.{width}" if width else name
    return name


def branch_target(addr, lo, hi):
    low = (lo >> 16) & 0xFF  # offset bits 2..9
    high = ((lo >> 34) | ((hi & 0x3FFFF) << 30)) & ((1 << 48) - 1)  # offset bits 10.., signed
    if high & (1 << 47):
        high -= 1 << 48
    return addr + 16 + (high << 10) + (low << 2)


def stall(hi):
    return (hi >> 41) & 0xF


def analyse_kernel(data, sec):
    words = [struct.unpack_from("<QQ", data, sec["offset"] + 16 * k) for k in range(sec["size"] // 16)]
    names = [decode(lo, hi) for lo, hi in words]
    back = []  # (start, branch index)
    for k, (lo, hi) in enumerate(words):
        if names[k] == "BRA":
            t = branch_target(16 * k, lo, hi)
            if t <= 16 * k:
                back.append((t // 16, k))
    loops = []
    for start, end in back:
        if any(start <= s and e <= end and (s, e) != (start, end) for s, e in back):
            continue  # holds an inner loop
        body = names[start:end + 1]
        mix = collections.Counter(body)
        mufu = mix.get("MUFU", 0)
        loops.append({
            "start": 16 * start, "instructions": len(body), "mix": dict(mix.most_common()),
            "mufu": mufu, "fp": sum(v for k, v in mix.items() if k in FP32 | FP64),
            "lds": sum(v for k, v in mix.items() if k.startswith("LDS")),
            "slots_per_interaction": len(body) / mufu if mufu else None,
            "stall_cycles": sum(stall(words[i][1]) for i in range(start, end + 1)),
        })
    return loops


def short_name(mangled):
    """_ZN...12split_forcesIfLi1ELi128ELi16ELi16ELb0EEEvN... -> split_forces<float,1,128,16,16,0>."""
    m = re.search(r"\d+([a-z_]+)I([fd])((?:L[ib]\d+E)*)E*vN", mangled)
    if not m:
        return mangled
    values = re.findall(r"L[ib](\d+)E", m.group(3))
    return f"{m.group(1)}<{','.join([{'f': 'float', 'd': 'double'}[m.group(2)]] + values)}>"


def cubins_from_build(build):
    """Every solvers/nbody/cuda/*.cu of the build, compiled again to an sm_90 cubin."""
    db = json.load(open(os.path.join(build, "compile_commands.json")))
    out = []
    for entry in db:
        if not re.search(r"solvers/nbody/cuda/[^/]+\.cu$", entry["file"]):
            continue
        args = shlex.split(entry["command"])
        cubin = tempfile.NamedTemporaryFile(suffix=".cubin", delete=False).name
        args[args.index("-o") + 1] = cubin
        args = [a for a in args if a != "-c"]
        args = [("-arch=sm_90" if a.startswith("--generate-code") else a) for a in args]
        args.insert(1, "-cubin")
        subprocess.run(args, cwd=entry["directory"], check=True)
        out.append(cubin)
    if not out:
        sys.exit(f"no solvers/nbody/*.cu in {build}/compile_commands.json (configure with CUDA)")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", help="a CUDA build folder (compile_commands.json)")
    ap.add_argument("--cubin", help="an sm_90 cubin")
    ap.add_argument("--filter", action="append", help="kernels whose (mangled) name holds this; repeatable (all "
                    "must match); default _forces")
    ap.add_argument("--json", help="also write the loops here")
    ap.add_argument("--max-slots", type=float, help="exit 1 when a force loop takes more issue slots per interaction, "
                    "or when no kernel matches")
    ap.add_argument("--best-max", action="append", default=[], metavar="TEXT=SLOTS",
                    help="exit 1 unless every kernel whose mangled name holds TEXT has a force loop of at most SLOTS "
                    "issue slots per interaction (its fastest loop; repeatable)")
    a = ap.parse_args()
    paths = [a.cubin] if a.cubin else cubins_from_build(a.build or "build")
    report = []
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        if not a.cubin:
            os.unlink(path)  # a temporary compiled here
        secs = sections(data)
        regs = register_counts(data, secs)
        for s in secs:
            if not s["name"].startswith(".text.") or not all(f in s["name"] for f in a.filter or ["_forces"]):
                continue
            mangled = s["name"][len(".text."):]
            loops = [l for l in analyse_kernel(data, s) if l["mufu"]]
            report.append({"kernel": short_name(mangled), "mangled": mangled, "registers": regs.get(s["info"]),
                           "loops": loops})
    for r in sorted(report, key=lambda r: r["kernel"]):
        for l in r["loops"]:
            other = {k: v for k, v in l["mix"].items() if k not in FP32 | FP64 | {"MUFU"} and not k.startswith("LDS")}
            print(f"{r['kernel']:48s} regs {r['registers']:>3}  loop {l['instructions']:4d} instr "
                  f"{l['mufu']:3d} MUFU {l['fp']:4d} FP {l['lds']:3d} LDS  "
                  f"{l['slots_per_interaction']:.3f} slots/interaction  stall {l['stall_cycles'] / l['instructions']:.2f}/instr  "
                  f"other {other}")
    if a.json:
        json.dump(report, open(a.json, "w"), indent=1)
    if a.max_slots is not None:
        worst = [(l["slots_per_interaction"], r["kernel"]) for r in report for l in r["loops"]]
        missing = [r["kernel"] for r in report if not r["loops"]]
        if not report or missing:
            print(f"FAIL: no kernel matched, or no force loop found in {missing}")
            return 1
        over = [w for w in worst if w[0] > a.max_slots]
        if over:
            print(f"FAIL: more than {a.max_slots} issue slots per interaction: {over}")
            return 1
        print(f"OK: {len(report)} kernels, at most {max(worst)[0]:.3f} issue slots per interaction")
    for rule in a.best_max:
        text, _, limit = rule.partition("=")
        chosen = [r for r in report if text in r["mangled"] and r["loops"]]
        slow = [(min(l["slots_per_interaction"] for l in r["loops"]), r["kernel"]) for r in chosen]
        slow = [w for w in slow if w[0] > float(limit)]
        if not chosen or slow:
            print(f"FAIL: kernels holding {text!r}: none, or fastest loop above {limit} slots: {slow}")
            return 1
        print(f"OK: {len(chosen)} kernels holding {text!r} have a loop within {limit} issue slots per interaction")
    return 0


if __name__ == "__main__":
    sys.exit(main())
