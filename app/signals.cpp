#include "app/signals.hpp"

#include <csignal>
#include <initializer_list>

namespace tessera::app {
namespace {
volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_stop_signal(int sig) {
  // A second SIGINT/SIGTERM means "now": the default action ends the process (async-signal-safe calls only).
  if (g_signal != 0 && (sig == SIGINT || sig == SIGTERM)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
}
}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // do not interrupt MPI or file system calls in flight
  for (int sig : {SIGUSR1, SIGUSR2, SIGTERM, SIGINT}) sigaction(sig, &sa, nullptr);
}

void install_early_handlers() {
  std::signal(SIGXFSZ, SIG_IGN);
  install_stop_handlers();
  // bin/tessera (the launcher) starts this program with the stop signals blocked, so that one
  // sent while the loader ran is pending, not fatal: with the handlers in place, let it in.
  sigset_t stop;
  sigemptyset(&stop);
  for (int sig : {SIGUSR1, SIGUSR2, SIGTERM, SIGINT}) sigaddset(&stop, sig);
  sigprocmask(SIG_UNBLOCK, &stop, nullptr);
}

void restore_default_handlers() {
  for (int sig : {SIGUSR1, SIGUSR2, SIGTERM, SIGINT}) std::signal(sig, SIG_DFL);
}

int stop_signal() { return g_signal; }
void clear_stop_signal() { g_signal = 0; }

}  // namespace tessera::app
