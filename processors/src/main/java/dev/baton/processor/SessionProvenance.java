package dev.baton.processor;

import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.state.SessionState;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The input range of each session (docs/audit.md). Since stored format 3 the range lives in the session's skeleton
 * ({@link SessionState#inputRange()}, written with the state it describes, no second store read or written per
 * event): each applied record moves the range's end (and starts it, for the session's first, see {@link #applied});
 * snapshots carry the range as {@link InputRange}; it goes with the session when the session is deleted.
 *
 * <p>Format 2 kept the range in a store of its own, {@value #STORE}. That store stays registered so that a session
 * stored by format 2 finds its range there once: {@link SessionRepository} reads it when it loads a version-2
 * skeleton ({@link #take}) and deletes it when the session is next stored as version 3 or deleted ({@link #forget}).
 * Sessions stored since format 3 never touch it.
 *
 * <p>A record read from a topic contributes its topic, partition and offset. A record carrying the header
 * {@value #SOURCE_LINE_HEADER} (the backfill sets it to the input line number, in decimal ASCII) contributes that line
 * instead of its offset: the topic a backfill replays through is its own transport, so its offsets say nothing about
 * the input (and would differ between runs on a shared cluster).
 *
 * <p>The layout of {@value #STORE}'s values (format 2, read only now) is the engine's {@code StateV2Reader}'s.
 */
public final class SessionProvenance {
    /** Format 2's store of input ranges, read (and emptied) by migration only. */
    public static final String STORE = "baton-session-provenance";
    public static final String SOURCE_LINE_HEADER = "baton.source.line";

    private final KeyValueStore<String, byte[]> store;

    /** Format 2's range store, or null when there is none to migrate from (tools, tests of a fresh topology). */
    public SessionProvenance(KeyValueStore<String, byte[]> store) {
        this.store = store;
    }

    /** Format 2's store, registered so that sessions stored by format 2 keep their range (see the class comment). */
    public static StoreBuilder<KeyValueStore<String, byte[]>> storeBuilder() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.String(),
                Serdes.ByteArray()).withLoggingEnabled(Map.of()).withCachingEnabled();
    }

    /**
     * The value format 2 stored for the session's range, or null (none, or no store to migrate from); read by
     * {@code StateMigrations} (engine), which knows its layout.
     */
    byte[] take(String sessionKey) {
        return store == null ? null : store.get(sessionKey);
    }

    /** Deletes the session's format-2 range, if it has one (no tombstone is written for a range never stored). */
    void forget(String sessionKey) {
        if (store != null && store.get(sessionKey) != null) store.delete(sessionKey);
    }

    /**
     * The state's range extended by the current input record, which was applied to it: its line when the record
     * carries {@value #SOURCE_LINE_HEADER}, else its topic, partition and offset. A state that started afresh has no
     * range yet, so the record starts one.
     */
    static InputRange applied(InputRange before, RecordMetadata meta, Headers headers) {
        Long line = lineOf(headers);
        InputRange after = extend(before, line == null ? meta : null, line);
        return after == null ? before : after;
    }

    /** The input line a record carries in {@value #SOURCE_LINE_HEADER}, or null (absent or not a decimal number). */
    static Long lineOf(Headers headers) {
        Header h = headers == null ? null : headers.lastHeader(SOURCE_LINE_HEADER);
        if (h == null || h.value() == null) return null;
        try {
            return Long.parseLong(new String(h.value(), StandardCharsets.US_ASCII).strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * {@code before} extended by one record: its offset when {@code meta} is given (the range restarts if the record
     * comes from another topic or partition, which the contract rules out), its line when {@code line} is given.
     */
    static InputRange extend(InputRange before, RecordMetadata meta, Long line) {
        String topic = before == null ? null : before.topic();
        Integer partition = before == null ? null : before.partition();
        Long firstOffset = before == null ? null : before.firstOffset();
        Long lastOffset = before == null ? null : before.lastOffset();
        Long firstLine = before == null ? null : before.firstLine();
        Long lastLine = before == null ? null : before.lastLine();
        if (meta != null && meta.topic() != null && meta.offset() >= 0) {
            if (!meta.topic().equals(topic) || partition == null || partition != meta.partition()) {
                topic = meta.topic();
                partition = meta.partition();
                firstOffset = meta.offset();
            }
            lastOffset = meta.offset();
        }
        if (line != null) {
            if (firstLine == null) firstLine = line;
            lastLine = line;
        }
        if (topic == null && firstLine == null) return null;
        return new InputRange(topic, partition, firstOffset, lastOffset, firstLine, lastLine);
    }
}
