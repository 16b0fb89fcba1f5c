package dev.baton.replay;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What {@code baton backfill} was given on its command line.
 *
 * @param input            SessionEvents, JSONL ({@code .gz} allowed, {@code -} for stdin)
 * @param output           where the snapshots go ({@code -} for stdout)
 * @param deadLetters      where rejected records go; null: only counted
 * @param bootstrapServers a cluster to replay on; null: a broker inside this process
 * @param config           a properties file; null: none
 * @param timeout          how long to wait for the results
 * @param noProgress       no progress line on stderr
 * @param triggers         synthetic hand-offs ({@code --handoff-at}); null: none
 * @param sample           the fraction of sessions replayed ({@code --sample}), 1.0 for all
 * @param outcomes         where the hand-off outcomes of the input's receipts go ({@code --outcomes}); null: receipts
 *                         are off and a receipt line in the input is refused
 */
public record BackfillOptions(Path input, Path output, Path deadLetters, String bootstrapServers, Path config,
                              Duration timeout, boolean noProgress, HandoffTriggers triggers, double sample, Path outcomes) {

    public BackfillOptions {
        if (!(sample > 0.0 && sample <= 1.0)) {
            throw new dev.baton.app.AppFailure(dev.baton.app.ExitCodes.USAGE,
                "--sample must be a fraction in (0, 1], not " + sample);
        }
    }

    /** Without receipts. */
    public BackfillOptions(Path input, Path output, Path deadLetters, String bootstrapServers, Path config,
                           Duration timeout, boolean noProgress, HandoffTriggers triggers, double sample) {
        this(input, output, deadLetters, bootstrapServers, config, timeout, noProgress, triggers, sample, null);
    }

    /** Without synthetic hand-offs or sampling. */
    public BackfillOptions(Path input, Path output, Path deadLetters, String bootstrapServers, Path config,
                           Duration timeout, boolean noProgress) {
        this(input, output, deadLetters, bootstrapServers, config, timeout, noProgress, null, 1.0, null);
    }
}
