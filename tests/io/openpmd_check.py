"""A checker for openPMD base standard 1.1.0 files over HDF5, written from the standard's text
(openPMD-standard, STANDARD.md at tag 1.1.0; openPMD-validator is not installable here).

    problems = check_file("fields_10.h5")       # [] when the file conforms

It checks what the standard requires (and the recommended root attributes tessera writes):
  root          openPMD (string "MAJOR.MINOR.REVISION"), openPMDextension (uint32), basePath
                (string, fixed to "/data/%T/"), iterationEncoding (fileBased|groupBased),
                iterationFormat (string with %T; fileBased: a file name without directories,
                matching this file), meshesPath / particlesPath (strings; when set, the group
                behind them must exist in every iteration), software, softwareVersion, date
                ("YYYY-MM-DD HH:mm:ss tz")
  iteration     time (floatX), dt (floatX), timeUnitSI (float64); fileBased: one iteration, the
                one the file name says
  records       names match \\w; unitDimension (7 float64), timeOffset (floatX)
  components    unitSI (float64); constant components: value and shape (uint64)
  meshes        geometry (cartesian|thetaMode|cylindrical|spherical|other; thetaMode needs
                geometryParameters), dataOrder (C|F), axisLabels (N strings), gridSpacing (N
                floatX), gridGlobalOffset (N float64), gridUnitSI (float64), and per component
                position (N floatX); N = the dimensionality; every component of a record has the
                same shape
  particles     required records position/ and positionOffset/; id, when present, uint64; every
                component of a species has the same number of particles
A (string) is "fixed-length, plain ASCII encoded character arrays": each string attribute
above must be an HDF5 fixed-length string with the ASCII character set.

usage: openpmd_check.py FILE...   (exit 1 and one line per problem when any file fails)
"""
import os
import re
import sys

import h5py
import numpy as np

DATE = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$")
NAME = re.compile(r"^\w+$")


class Checker:
    def __init__(self, path):
        self.path = path
        self.problems = []

    def fail(self, where, what):
        self.problems.append(f"{os.path.basename(self.path)}:{where}: {what}")

    # ---- typed attribute access ------------------------------------------------------------
    def attr(self, obj, name, required=True):
        if name not in obj.attrs:
            if required:
                self.fail(obj.name, f"missing required attribute '{name}'")
            return None
        return obj.attrs[name]

    def string(self, obj, name, required=True, array=False):
        """A (string) attribute: fixed-length ASCII. Returns str (or a list of str)."""
        if name not in obj.attrs:
            if required:
                self.fail(obj.name, f"missing required attribute '{name}'")
            return None
        aid = obj.attrs.get_id(name)
        t = aid.get_type()
        if not isinstance(t, h5py.h5t.TypeStringID) or t.is_variable_str():
            self.fail(obj.name, f"attribute '{name}' is not a fixed-length string")
            return None
        if t.get_cset() != h5py.h5t.CSET_ASCII:
            self.fail(obj.name, f"attribute '{name}' is not ASCII encoded")
        shape = aid.shape
        value = obj.attrs[name]
        if array:
            if len(shape) != 1:
                self.fail(obj.name, f"attribute '{name}' must be a 1-dimensional array of strings")
                return None
            return [v.decode("ascii") for v in np.atleast_1d(value)]
        if shape not in ((), (1,)):
            self.fail(obj.name, f"attribute '{name}' must be one string, has shape {shape}")
            return None
        v = value if np.ndim(value) == 0 else value[0]
        return v.decode("ascii") if isinstance(v, bytes) else str(v)

    def number(self, obj, name, kinds, n=None, size=None, required=True):
        """A numeric attribute of dtype kind in `kinds` ('f', 'u', 'i'), itemsize `size` when given,
        a scalar (n None) or a 1D array of n elements."""
        if name not in obj.attrs:
            if required:
                self.fail(obj.name, f"missing required attribute '{name}'")
            return None
        v = np.asarray(obj.attrs[name])
        if v.dtype.kind not in kinds or (size and v.dtype.itemsize != size):
            self.fail(obj.name, f"attribute '{name}' has type {v.dtype}, expected "
                      f"{'/'.join(kinds)}{size * 8 if size else 'X'}")
            return None
        if n is None and v.ndim != 0 and v.shape != (1,):
            self.fail(obj.name, f"attribute '{name}' must be a scalar, has shape {v.shape}")
            return None
        if n is not None and v.shape != (n,):
            self.fail(obj.name, f"attribute '{name}' must hold {n} values, has shape {v.shape}")
            return None
        return v

    # ---- the standard's sections ----------------------------------------------------------
    def root(self, f):
        version = self.string(f, "openPMD")
        if version is not None and not re.match(r"^\d+\.\d+\.\d+$", version):
            self.fail("/", f"openPMD = '{version}' is not MAJOR.MINOR.REVISION")
        self.number(f, "openPMDextension", "u", size=4)
        base = self.string(f, "basePath")
        if base is not None and base != "/data/%T/":
            self.fail("/", f"basePath = '{base}', fixed to '/data/%T/' in this version")
        encoding = self.string(f, "iterationEncoding")
        if encoding not in (None, "fileBased", "groupBased"):
            self.fail("/", f"iterationEncoding = '{encoding}' is neither fileBased nor groupBased")
        fmt = self.string(f, "iterationFormat")
        if fmt is not None and "%T" not in fmt:
            self.fail("/", f"iterationFormat = '{fmt}' has no %T")
        if encoding == "fileBased" and fmt is not None and "%T" in fmt:
            if "/" in fmt:
                self.fail("/", f"iterationFormat = '{fmt}' must be a file name without directories")
            pattern = "^" + re.escape(fmt).replace("%T", r"(\d+)") + "$"
            m = re.match(pattern, os.path.basename(self.path))
            if not m:
                self.fail("/", f"the file name does not match iterationFormat '{fmt}'")
            self.file_iteration = m.group(1) if m else None
        meshes = self.string(f, "meshesPath", required=False)
        particles = self.string(f, "particlesPath", required=False)
        for name in ("software", "softwareVersion"):  # recommended; tessera writes them
            self.string(f, name)
        date = self.string(f, "date")
        if date is not None and not DATE.match(date):
            self.fail("/", f"date = '{date}' is not 'YYYY-MM-DD HH:mm:ss tz'")
        return encoding, meshes, particles

    def iteration(self, it):
        self.number(it, "time", "f")
        self.number(it, "dt", "f")
        self.number(it, "timeUnitSI", "f", size=8)

    def record(self, rec):
        if not NAME.match(rec.name.split("/")[-1]):
            self.fail(rec.name, "record names may only contain a-Z, 0-9 and _")
        self.number(rec, "unitDimension", "f", n=7, size=8)
        self.number(rec, "timeOffset", "f")

    def components(self, rec):
        """The record's components (the record itself for a scalar record), checked for unitSI,
        as (name, object, shape) with the constant ones' shape from their attribute."""
        out = []
        members = [(rec.name.split("/")[-1], rec)] if self.is_component(rec) else list(rec.items())
        for name, c in members:
            if not NAME.match(name):
                self.fail(c.name, "component names may only contain a-Z, 0-9 and _")
            self.number(c, "unitSI", "f", size=8)
            if isinstance(c, h5py.Group):
                self.attr(c, "value")
                shape = self.attr(c, "shape")
                if shape is not None:
                    shape = np.asarray(shape)
                    if shape.dtype != np.uint64 or shape.ndim != 1:
                        self.fail(c.name, f"attribute 'shape' must be a 1D array of uint64, is {shape.dtype} {shape.shape}")
                        shape = None
                out.append((name, c, tuple(int(s) for s in shape) if shape is not None else None))
            else:
                out.append((name, c, c.shape))
        return out

    @staticmethod
    def is_component(obj):
        return isinstance(obj, h5py.Dataset) or "value" in obj.attrs

    def mesh(self, rec):
        self.record(rec)
        geometry = self.string(rec, "geometry")
        if geometry not in (None, "cartesian", "thetaMode", "cylindrical", "spherical", "other"):
            self.fail(rec.name, f"geometry = '{geometry}' is not an allowed value")
        if geometry == "thetaMode":
            self.string(rec, "geometryParameters")
        order = self.string(rec, "dataOrder")
        if order not in (None, "C", "F"):
            self.fail(rec.name, f"dataOrder = '{order}' is neither C nor F")
        comps = self.components(rec)
        shapes = {shape for _, _, shape in comps if shape is not None}
        if len(shapes) > 1:
            self.fail(rec.name, f"components of one mesh record have different shapes {sorted(shapes)}")
        n = len(next(iter(shapes))) if shapes else None
        labels = self.string(rec, "axisLabels", array=True)
        if labels is not None and n is not None and len(labels) != n:
            self.fail(rec.name, f"axisLabels has {len(labels)} labels for {n} dimensions")
        self.number(rec, "gridSpacing", "f", n=n)
        self.number(rec, "gridGlobalOffset", "f", n=n, size=8)
        self.number(rec, "gridUnitSI", "f", size=8)
        for _, c, _ in comps:
            self.number(c, "position", "f", n=n)

    def species(self, sp):
        for required in ("position", "positionOffset"):
            if required not in sp:
                self.fail(sp.name, f"missing required record '{required}/'")
        counts = set()
        for name, rec in sp.items():
            if name == "particlePatches":
                continue
            self.record(rec)
            for cname, c, shape in self.components(rec):
                if shape is not None:
                    counts.add(shape[0] if len(shape) == 1 else shape)
                if name == "id" and isinstance(c, h5py.Dataset) and c.dtype != np.uint64:
                    self.fail(c.name, f"id has type {c.dtype}, must be uint64")
        if len(counts) > 1:
            self.fail(sp.name, f"records of one species hold different particle counts {sorted(map(str, counts))}")

    def run(self):
        self.file_iteration = None
        with h5py.File(self.path, "r") as f:
            encoding, meshes, particles = self.root(f)
            if "data" not in f:
                self.fail("/", "no /data group (basePath /data/%T/)")
                return self.problems
            iterations = list(f["data"].keys())
            if encoding == "fileBased" and self.file_iteration is not None and iterations != [
                    str(int(self.file_iteration))]:
                self.fail("/data", f"holds iterations {iterations}, the file name says {self.file_iteration}")
            for key in iterations:
                if not key.isdigit():
                    self.fail("/data", f"'{key}' is not an iteration number")
                    continue
                it = f["data"][key]
                self.iteration(it)
                for path, check in ((meshes, self.mesh), (particles, self.species)):
                    if path is None:
                        continue
                    if path not in it:
                        self.fail(it.name, f"'{path}' is set but the group does not exist")
                        continue
                    for _, obj in it[path].items():
                        check(obj)
        return self.problems


def check_file(path):
    return Checker(path).run()


if __name__ == "__main__":
    bad = 0
    for p in sys.argv[1:]:
        for problem in check_file(p):
            print(problem)
            bad += 1
    sys.exit(1 if bad else 0)
