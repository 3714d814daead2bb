// floe's command line. Only argument parsing and dispatch live in src/cli;
// each subcommand calls into the library layers.
#pragma once

namespace floe::cli {

// Runs the command line; returns the process exit code.
int Main(int argc, char** argv);

}  // namespace floe::cli
