#!/bin/sh
# fdtd_paraview (ctest): paraview_test.sh PVPYTHON XVFB_RUN OUT_DIR PNG_DIR [SCRIPT]
# Runs paraview_check.py under pvpython in a virtual X server on what fdtd_paraview_run wrote.
# Without pvpython or xvfb-run the test is reported as skipped (exit code 77, SKIP_RETURN_CODE),
# never as passed.
pv=$1
xvfb=$2
out=$3
png=$4
if [ -z "$pv" ] || [ ! -x "$pv" ]; then
  echo "SKIPPED: pvpython not found (Debian: apt-get install python3-paraview; it is /usr/bin/pvpython)"
  exit 77
fi
if [ -z "$xvfb" ] || [ ! -x "$xvfb" ]; then
  echo "SKIPPED: xvfb-run not found (Debian: apt-get install xvfb); pvpython needs an X server to render"
  exit 77
fi
# pvpython runs Debian's python3: nothing of another interpreter's environment.
unset PYTHONHOME PYTHONPATH
# A 5th argument names another check script of this folder (paraview_materials_check.py).
script=$(dirname "$0")/${5:-paraview_check.py}
rc=0
log=$(mktemp)
for attempt in 1 2 3 4; do
  # A display number of our own: two `xvfb-run -a` started at once (tests in parallel) can
  # pick the same one, and the second pvpython then loses its X server.
  # (/bin/sh may be dash, which has no $RANDOM: read two random bytes instead.)
  display=$((200 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 700))
  "$xvfb" -n "$display" -s "-screen 0 1024x768x24" "$pv" "$script" "$out" "$png" > "$log" 2>&1
  rc=$?
  cat "$log"
  # A failed check exits 1; only a lost X server (a signal, or VTK's "bad X server
  # connection" abort, which ParaView's handler turns into an ordinary exit code) is tried
  # again, on another display.
  if [ "$rc" -lt 128 ] && ! grep -qE "bad X server connection|Xvfb failed to start" "$log"; then rm -f "$log"; exit "$rc"; fi
  echo "pvpython ended with code $rc (the virtual X server on :$display?); attempt $attempt of 4"
  sleep 1
done
rm -f "$log"
exit "$rc"
