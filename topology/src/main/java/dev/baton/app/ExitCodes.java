package dev.baton.app;

/** The exit codes of the {@code baton} command, as documented in its {@code --help}. */
public final class ExitCodes {
    /** Done; for {@code backfill}: every record was applied, counted as a duplicate or dead-lettered. */
    public static final int OK = 0;
    /** Something failed: a file could not be read or written, Kafka or the registry was unreachable. */
    public static final int FAILED = 1;
    /** The command line was wrong (unknown option, missing argument, bad value). */
    public static final int USAGE = 2;
    /** {@code backfill} finished, but not every input record could be accounted for. */
    public static final int INCOMPLETE = 3;
    /** {@code verify}: at least one snapshot does not match its content hash, has none, or cannot be read. */
    public static final int MISMATCH = 4;
    /** Stopped by a signal (SIGINT / SIGTERM) before finishing: 128 + SIGINT, as shells report it. */
    public static final int INTERRUPTED = 130;

    private ExitCodes() {
    }
}
