#pragma once
// Stop requests from the batch system: Slurm's --signal=USR1@T (or a plain SIGTERM) makes the
// run loop write a checkpoint and stop cleanly before the time limit. The handler only sets a
// flag; the ranks agree on it at the next step boundary. SIGINT (Ctrl-C) does the same; a
// second SIGINT or SIGTERM ends the process at once.
namespace tessera::app {

void install_stop_handlers();  // SIGUSR1, SIGUSR2, SIGTERM, SIGINT
void restore_default_handlers();  // when the deck turns on_signal off
int stop_signal();             // the signal received, or 0
void clear_stop_signal();      // for tests

}  // namespace tessera::app
