#!/usr/bin/env bash
# tessera installed and moved, run as a user of the install would: `cmake --install` into a
# temporary prefix, the prefix copied elsewhere (a relocation: nothing may point back at the
# first prefix or the build tree), then from an unrelated working directory with PATH holding
# only the prefix's and MPI's bin/: the RUNPATH and the libraries the loader picks hold no build-tree path,
# --version names the new prefix, the demo runs on 2 ranks from share/tessera/inputs, a deck
# with data files runs from there too, and tessera-post reads the demo's output.
#   install_prefix.sh BUILD_DIR SOURCE_DIR MPIEXEC
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd); mpiexec=$3
tmp=$(mktemp -d /tmp/tessera-install-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/stage" >/dev/null
cp -a "$tmp/stage" "$tmp/moved" && rm -rf "$tmp/stage"
prefix=$tmp/moved
for f in bin/tessera bin/tessera-core bin/tessera-post share/tessera/inputs/demo.toml share/tessera/inputs/bfs/data/two_rings.txt \
         share/tessera/jobscripts/slurm/tessera-job.sh share/tessera/docs/install.md share/tessera/docs/LICENSE \
         share/tessera/python/tessera_post/cli.py share/tessera/modulefiles/tessera; do
  [ -e "$prefix/$f" ] || fail "the install lacks $f"
done

# bin/tessera is the static launcher (no loader, no libraries); bin/tessera-core the program.
# (Not in a sanitized build: the sanitizers' runtimes are shared libraries, app/CMakeLists.txt.)
if [ "${TESSERA_TEST_SANITIZED:-0}" != 1 ]; then
  readelf -d "$prefix/bin/tessera" 2>/dev/null | grep -q NEEDED && fail "bin/tessera (the launcher) is not static"
fi
# RUNPATH: $ORIGIN-relative or outside the build and source trees.
runpath=$(readelf -d "$prefix/bin/tessera-core" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
echo "RUNPATH: ${runpath:-(none)}"
readelf -d "$prefix/bin/tessera-core" | grep -q '(RPATH)' && fail "bin/tessera-core has an RPATH (not overridable by LD_LIBRARY_PATH)"
IFS=: read -r -a entries <<< "$runpath"
for e in "${entries[@]}"; do
  case "$e" in
    '$ORIGIN'*) ;;
    "$build"*|"$src"*|"$tmp/stage"*) fail "RUNPATH entry $e points into the build tree" ;;
  esac
done
libs=$(env -u LD_LIBRARY_PATH ldd "$prefix/bin/tessera-core")
grep -q 'not found' <<< "$libs" && fail "unresolved libraries: $(grep 'not found' <<< "$libs")"
grep -qE "$build|$src" <<< "$libs" && fail "a library resolves into the build tree"

# An unrelated working directory; PATH: the prefix and MPI's own bin/ (Open MPI starts its
# daemon, orted, from PATH, even for a singleton), nothing of the build or source tree.
mkdir "$tmp/work" && cd "$tmp/work"
mpibin=$(dirname "$(readlink -f "$mpiexec")")
case "$mpibin" in "$build"*|"$src"*) fail "mpiexec $mpiexec lives in the build tree" ;; esac
run() { env -u LD_LIBRARY_PATH PATH="$prefix/bin:$mpibin" "$@"; }
version=$(run tessera --version)
echo "$version"
grep -q "installed in $prefix " <<< "$version" || fail "--version does not name the prefix $prefix"
run tessera --help | grep -q "Documentation: $prefix/share/tessera/docs" || fail "--help does not point at the installed docs"

run "$mpiexec" -n 2 tessera run "$prefix/share/tessera/inputs/demo.toml" --backend cpu > demo.log 2>&1 ||
  { cat demo.log; fail "the demo failed"; }
grep -q "outputs in output/nbody/demo" demo.log || { cat demo.log; fail "the demo did not report its outputs"; }
[ -f output/nbody/demo/diagnostics.h5 ] || fail "no output/nbody/demo/diagnostics.h5 in the working directory"
# A deck whose data file is named relative to the deck: found from the installed inputs.
run "$mpiexec" -n 2 tessera run "$prefix/share/tessera/inputs/bfs/edge_list.toml" --backend cpu > bfs.log 2>&1 ||
  { cat bfs.log; fail "inputs/bfs/edge_list.toml failed from the install"; }

post=$(run tessera-post nbody-energy output/nbody/demo/diagnostics.h5 -o energy.png 2>&1) ||
  { echo "$post"; fail "tessera-post failed"; }
echo "$post" | tail -2
grep -q "final dE/E0" <<< "$post" && [ -s energy.png ] || fail "tessera-post did not report the energy or write its plot"
[ -z "$(find "$prefix" -name __pycache__)" ] || fail "tessera-post wrote bytecode into the prefix"
echo "OK: installed, moved, and run from $prefix"
