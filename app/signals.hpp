#pragma once
// Stop requests from the batch system: Slurm's --signal=USR1@T (or a plain SIGTERM) makes the
// run loop write a checkpoint and stop cleanly before the time limit. The handler only sets a
// flag; the ranks agree on it at the next step boundary. SIGINT (Ctrl-C) does the same; a
// second SIGINT or SIGTERM ends the process at once.
//
// The handlers are installed from the executable's .preinit_array (app/main.cpp), the first
// code a process runs after the dynamic loader: before the shared libraries' initializers,
// MPI_Init and main(). A signal that arrives during start-up is remembered, not fatal.
namespace tessera::app {

// The start-up set: the stop handlers, and SIGXFSZ ignored so a write beyond `ulimit -f`
// fails with EFBIG and takes the normal write-error path (a message naming the file, exit 1
// on every rank) instead of killing the rank silently.
void install_early_handlers();
void install_stop_handlers();     // SIGUSR1, SIGUSR2, SIGTERM, SIGINT
void restore_default_handlers();  // when the deck turns on_signal off
int stop_signal();                // the signal received, or 0
void clear_stop_signal();         // for tests

}  // namespace tessera::app
