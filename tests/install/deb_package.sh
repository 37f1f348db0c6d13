#!/usr/bin/env bash
# cpack -G DEB builds tessera_<version>_<arch>.deb; its metadata is checked with dpkg-deb: the
# files under /usr (executables, tessera-post's package, decks with their data, job scripts,
# docs, copyright) and the Depends line (Open MPI, the parallel HDF5 runtime, the Python modules
# of tessera-post). Then, as root with dpkg, the package is unpacked into a scratch root
# (dpkg-deb -x: no maintainer scripts run, nothing touches this machine's dpkg database) and the
# demo runs from that root's usr/bin against this machine's libraries. With
# TESSERA_TEST_SYSTEM_INSTALL=1 (CI sets it: .ci/run), as root, the package is also installed
# on this machine the way a user installs it (`apt-get install ./tessera_*.deb`, dependencies
# resolved by apt), the demo runs from /usr/bin on 2 ranks, and the package is removed again.
# A fresh Debian 12 chroot (debootstrap) is not made here: docs/install.md says how.
#   deb_package.sh BUILD_DIR MPIEXEC
set -euo pipefail
build=$(cd "$1" && pwd); mpiexec=$2
command -v dpkg-deb >/dev/null || { echo "SKIP: no dpkg-deb"; exit 77; }
tmp=$(mktemp -d /tmp/tessera-deb-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp" > "$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; fail "cpack failed"; }
deb=$(ls "$tmp"/tessera_*.deb)
info=$(dpkg-deb -I "$deb")
files=$(dpkg-deb -c "$deb" | awk '{print $6}')
echo "$info" | sed -n '/Package:/p;/Version:/p;/Depends:/p'
for dep in openmpi-bin libopenmpi3 libhdf5-openmpi- python3-h5py python3-numpy python3-matplotlib; do
  grep -q "Depends:.*$dep" <<< "$info" || fail "Depends lacks $dep"
done
for f in ./usr/bin/tessera ./usr/bin/tessera-core ./usr/bin/tessera-post ./usr/share/tessera/python/tessera_post/cli.py \
         ./usr/share/tessera/inputs/demo.toml ./usr/share/tessera/inputs/spmv/data/lshape_laplace.mtx \
         ./usr/share/tessera/jobscripts/slurm/tessera-job.sh ./usr/share/tessera/docs/install.md \
         ./usr/share/doc/tessera/copyright; do
  grep -qx -- "$f" <<< "$files" || fail "the package lacks $f"
done
grep -q 'BSD-3-Clause' <<< "$info" || fail "the package description does not name the licence"

if [ "$(id -u)" -ne 0 ]; then echo "OK (metadata only: not root)"; exit 0; fi
dpkg-deb -x "$deb" "$tmp/root"
mkdir "$tmp/work" && cd "$tmp/work"
env -u LD_LIBRARY_PATH PATH="$tmp/root/usr/bin:/usr/bin:/bin" "$mpiexec" -n 2 tessera run \
  "$tmp/root/usr/share/tessera/inputs/demo.toml" --backend cpu --set run.steps=20 > demo.log 2>&1 ||
  { cat demo.log; fail "the demo from the unpacked package failed"; }
grep -q "installed in $tmp/root/usr " <(PATH="$tmp/root/usr/bin:/usr/bin:/bin" tessera --version) || fail "--version does not name the unpacked /usr"

if [ "${TESSERA_TEST_SYSTEM_INSTALL:-0}" = 1 ] && command -v apt-get >/dev/null; then
  if dpkg-query -W -f='${Status}' tessera 2>/dev/null | grep -q "install ok installed"; then
    echo "SKIP of the system install: a tessera package is installed on this machine already"
  else
    trap 'DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq tessera >/dev/null 2>&1; rm -rf "$tmp"' EXIT
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" > "$tmp/apt.log" 2>&1 ||
      { cat "$tmp/apt.log"; fail "apt-get install $(basename "$deb") failed"; }
    [ "$(dpkg -L tessera | grep -c '^/usr/bin/tessera')" -ge 2 ] || fail "the installed package lacks /usr/bin/tessera"
    mkdir "$tmp/sys" && cd "$tmp/sys"
    env -u LD_LIBRARY_PATH PATH="/usr/bin:/bin" "$mpiexec" -n 2 /usr/bin/tessera run /usr/share/tessera/inputs/demo.toml \
      --backend cpu --set run.steps=20 > demo.log 2>&1 || { cat demo.log; fail "the demo from /usr/bin failed"; }
    /usr/bin/tessera --version | grep -q "installed in /usr " || fail "--version does not name /usr"
    env -u LD_LIBRARY_PATH /usr/bin/tessera-post nbody-energy output/nbody/demo/diagnostics.h5 -o energy.png > post.log 2>&1 ||
      { cat post.log; fail "tessera-post from /usr/bin failed"; }
    echo "OK: apt-get install ./$(basename "$deb") on this machine, the demo and tessera-post ran from /usr/bin"
  fi
fi
echo "OK: $(basename "$deb") built, its metadata checked, the demo ran from its usr/bin"
