/* bin/tessera: a small static launcher in front of the real program, bin/tessera-core.
 *
 * A batch system's early warning (SIGUSR1, SIGTERM) may reach a rank the moment it exists.
 * tessera-core installs its handlers before anything else runs (.preinit_array), but the
 * dynamic loader first spends ~20 ms loading MPI, HDF5, CUDA and ~50 other libraries, and a
 * signal in that window ends the process. This launcher has no loader: its first action
 * blocks the stop signals, which stay blocked (and pending, if they arrive) across execve,
 * until tessera-core unblocks them with its handlers in place. SIGXFSZ is ignored here too, so
 * a write past `ulimit -f` fails with EFBIG and takes tessera's write-error path.
 *
 * TESSERA_LAUNCHER tells tessera-core the path the user ran, for the restart command it prints.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  (void)argc;
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGUSR1);
  sigaddset(&stop, SIGUSR2);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigprocmask(SIG_BLOCK, &stop, NULL);
  signal(SIGXFSZ, SIG_IGN);

  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    fprintf(stderr, "[tessera] error: cannot find the launcher's own path (/proc/self/exe): %s\n", strerror(errno));
    return 127;
  }
  self[n] = '\0';
  char core[PATH_MAX + 32];
  const char* slash = strrchr(self, '/');
  snprintf(core, sizeof core, "%.*s/tessera-core", (int)(slash ? slash - self : 1), slash ? self : ".");
  setenv("TESSERA_LAUNCHER", self, 1);
  execv(core, argv);
  fprintf(stderr, "[tessera] error: cannot start %s: %s (tessera-core belongs beside bin/tessera)\n", core,
          strerror(errno));
  return 127;
}
