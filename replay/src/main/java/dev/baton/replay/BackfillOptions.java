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
 */
public record BackfillOptions(Path input, Path output, Path deadLetters, String bootstrapServers, Path config,
                              Duration timeout, boolean noProgress) {
}
