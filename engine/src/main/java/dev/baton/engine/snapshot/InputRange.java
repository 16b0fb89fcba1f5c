package dev.baton.engine.snapshot;

/**
 * Where a snapshot came from: the input range of its session that it reflects. Kafka coordinates (topic, partition,
 * offsets of the first and last input records applied for the session) for records read from a topic, and input line
 * numbers for records that carry the line they were read from (backfill). Either half is null when no applied record
 * had it. Plain values: the engine itself never sets this; the processor above it does.
 */
public record InputRange(String topic, Integer partition, Long firstOffset, Long lastOffset, Long firstLine,
                         Long lastLine) {
}
