package dev.baton.cli;

/** Placeholder until the topology lands in main. */
final class ServiceRunner {
  ServiceRunner(RunCommand options) {}

  int run() {
    throw new CliException(ExitCodes.FAILED, "this command needs the Baton topology, which is not built into this version yet");
  }
}
