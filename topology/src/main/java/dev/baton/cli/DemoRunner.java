package dev.baton.cli;

/** Placeholder until the topology lands in main. */
final class DemoRunner {
  DemoRunner(java.nio.file.Path input, boolean jsonl) {}

  int run() {
    throw new CliException(ExitCodes.FAILED, "this command needs the Baton topology, which is not built into this version yet");
  }
}
