package dev.baton.processor;

import dev.baton.deadletter.DeadLetter;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.EntryKind;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateFormat;
import dev.baton.engine.state.StateStorage;
import dev.baton.engine.state.StateV1Reader;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The session processor on its own: real in-memory stores, a mock context, events in, departures out. */
class SessionContextProcessorTest {
    static final String T = "acme";
    static final String S = "s1";
    static final String KEY = T + "/" + S;

    /** A processor with its stores, driven by hand. */
    static final class Rig {
        final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
        final KeyValueStore<String, byte[]> skeletons = store(SessionRepository.SKELETON_STORE, Serdes.String());
        final KeyValueStore<Bytes, byte[]> entries = store(SessionRepository.ENTRY_STORE, Serdes.Bytes());
        final KeyValueStore<Bytes, byte[]> ids = store(SessionRepository.HANDOFF_ID_STORE, Serdes.Bytes());
        final KeyValueStore<String, byte[]> provenance = store(SessionProvenance.STORE, Serdes.String());
        final KeyValueStore<String, Long> timers;
        final SessionContextProcessor processor;
        long offset;

        Rig(Policy policy, long cacheBytes) {
            context.setCurrentSystemTimeMs(1_000);
            timers = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(SessionContextProcessor.TIMER_STORE),
                    Serdes.String(), Serdes.Long()).withLoggingDisabled().build();
            timers.init(context.getStateStoreContext(), timers);
            context.addStateStore(timers);
            for (KeyValueStore<?, byte[]> s : List.of(skeletons, entries, ids, provenance)) {
                s.init(context.getStateStoreContext(), s);
                context.addStateStore(s);
            }
            processor = new SessionContextProcessor(new SessionProcessorOptions("snapshots", "dead-letters", true,
                    Duration.ofSeconds(1), 1_000, policy, null, null, cacheBytes));
            processor.init(context);
        }

        private <K> KeyValueStore<K, byte[]> store(String name, org.apache.kafka.common.serialization.Serde<K> keys) {
            return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), keys, Serdes.ByteArray())
                    .withLoggingDisabled().build();
        }

        void send(Turn turn) {
            send(new InboundEvent("e" + offset, T, S, 1_000 + offset, turn, null, false, null, raw(KEY),
                    raw("turn " + turn.seq())));
        }

        void send(Handoff h) {
            send(new InboundEvent("e" + offset, T, S, 1_000 + offset, null, h, false, null, raw(KEY),
                    raw("handoff " + h.handoffId())));
        }

        void close() {
            send(new InboundEvent("e" + offset, T, S, 1_000 + offset, null, null, true, "done", raw(KEY), raw("closed")));
        }

        void send(InboundEvent ev) {
            context.setRecordMetadata("baton.session-events", 0, offset++);
            processor.process(new Record<>(KEY, ev, 1_000 + offset));
        }

        List<Object> forwarded(String child) {
            List<Object> out = new ArrayList<>();
            for (MockProcessorContext.CapturedForward<? extends String, ?> f : context.forwarded()) {
                if (child.equals(f.childName().orElse(null))) out.add(f.record().value());
            }
            return out;
        }

        int entries(EntryKind kind) {
            int n = 0;
            try (KeyValueIterator<Bytes, byte[]> it = entries.all()) {
                while (it.hasNext()) {
                    KeyValue<Bytes, byte[]> kv = it.next();
                    byte[] k = kv.key.get();
                    if (k[k.length - 9] == kind.code()) n++;
                }
            }
            return n;
        }

        long count(KeyValueStore<?, ?> store) {
            long n = 0;
            try (KeyValueIterator<?, ?> it = store.all()) {
                while (it.hasNext()) {
                    it.next();
                    n++;
                }
            }
            return n;
        }
    }

    static byte[] raw(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static Turn turn(long seq) {
        return seq == 0 ? Turn.of(0, "user", Role.USER, "the task")
                : Turn.of(seq, seq % 2 == 0 ? "qwen" : "opus", Role.ASSISTANT, "turn " + seq + " " + "x".repeat(300));
    }

    static final Policy SMALL = Policy.builder().transcriptBudgetChars(3_000).brickBudgetCliChars(2_000)
            .brickBudgetLocalChars(1_500).digestBudgetChars(800).build();

    @Test
    void shouldKeepOneEntryPerLiveTurnAndDeleteWhatCompactionDrops() {
        Rig rig = new Rig(SMALL, SessionProcessorOptions.DEFAULT_DECODED_CACHE_BYTES);
        List<Integer> live = new ArrayList<>();
        List<Integer> skeleton = new ArrayList<>();
        for (long seq = 0; seq < 400; seq++) {
            rig.send(turn(seq));
            if (seq == 99 || seq == 399) {
                live.add(rig.entries(EntryKind.TURN));
                skeleton.add(rig.skeletons.get(KEY).length);
            }
        }
        SessionState state = SessionRepository.read(KEY, rig.skeletons, rig.entries, rig.ids);
        assertThat(state.turnCount()).isEqualTo(400);
        assertThat(rig.entries(EntryKind.TURN)).as("one entry per turn still held")
                .isEqualTo(state.body().size() + 2);
        assertThat(live.get(1)).as("live turn entries do not grow with the session").isEqualTo(live.get(0));
        assertThat(skeleton.get(1)).isLessThan(1_024);
        assertThat(rig.entries(EntryKind.DIGEST)).isEqualTo(state.compacted().lines.size());
    }

    @Test
    void shouldRenderTheSameWithAndWithoutTheDecodedStateCache() {
        Rig cached = new Rig(SMALL, SessionProcessorOptions.DEFAULT_DECODED_CACHE_BYTES);
        Rig uncached = new Rig(SMALL, 0);
        for (Rig rig : List.of(cached, uncached)) {
            for (long seq = 0; seq < 120; seq++) {
                rig.send(turn(seq == 50 ? 51 : seq == 51 ? 50 : seq)); // one out-of-order pair: a held turn
                if (seq % 30 == 29) rig.send(new Handoff("h" + seq, null, "qwen", Target.LOCAL, null, null, null));
            }
            rig.send(new Handoff("h29", null, "qwen", Target.LOCAL, null, null, null)); // a duplicate id
        }
        List<Object> a = cached.forwarded("snapshots");
        assertThat(a).hasSize(4);
        assertThat(uncached.forwarded("snapshots")).isEqualTo(a);
        assertThat(cached.forwarded("dead-letters")).isEmpty();
    }

    @Test
    void shouldReportTheStablePrefixAgainstTheReceiversPreviousSnapshotFromTheStoredState() {
        Rig rig = new Rig(Policy.defaults(), 0); // no decoded-state cache: every event reads the stored state
        for (long seq = 0; seq < 30; seq++) rig.send(turn(seq));
        rig.send(new Handoff("h1", null, "qwen", Target.LOCAL, null, null, null));
        for (long seq = 30; seq < 40; seq++) rig.send(turn(seq));
        rig.send(new Handoff("h2", null, "qwen", Target.LOCAL, null, null, null));
        rig.send(new Handoff("h3", null, "opus", Target.LOCAL, null, null, null));
        rig.send(new Handoff("h4", null, "qwen", Target.CLAUDE_CLI, null, null, null));
        List<Object> out = rig.forwarded("snapshots");
        assertThat(out).hasSize(4);
        Snapshot first = (Snapshot) out.get(0);
        assertThat(first.stats().stablePrefixChars()).as("nothing to compare with").isNull();
        assertThat(((Snapshot) out.get(1)).stats().stablePrefixChars()).as("the conversation only grew")
                .isEqualTo(first.stats().messageChars());
        assertThat(((Snapshot) out.get(2)).stats().stablePrefixChars()).as("another receiver's first").isNull();
        assertThat(((Snapshot) out.get(3)).stats().stablePrefixChars()).as("CLAUDE_CLI: no transcript").isNull();
        assertThat(rig.entries(EntryKind.PREFIX)).as("one print per LOCAL receiver").isEqualTo(2);
    }

    @Test
    void shouldDeadLetterALateTurnWithItsOriginalBytes() {
        Policy oneHeld = Policy.builder().maxHeldTurns(1).build();
        Rig rig = new Rig(oneHeld, SessionProcessorOptions.DEFAULT_DECODED_CACHE_BYTES);
        rig.send(turn(0));
        rig.send(turn(2));
        rig.send(turn(3)); // two held: past the bound, seq 1 is recorded missing
        rig.send(turn(1));
        assertThat(rig.forwarded("dead-letters")).singleElement().satisfies(o -> {
            DeadLetter dl = (DeadLetter) o;
            assertThat(dl.code()).isEqualTo("LATE_TURN");
            assertThat(new String(dl.value(), StandardCharsets.UTF_8)).isEqualTo("turn 1");
        });
        assertThat(rig.entries(EntryKind.HELD)).isZero();
    }

    @Test
    void shouldDeleteEveryEntryOfASessionOnceItsGraceEnded() {
        Policy p = Policy.builder().closedGraceMillis(1_000).build();
        Rig rig = new Rig(p, SessionProcessorOptions.DEFAULT_DECODED_CACHE_BYTES);
        rig.context.setCurrentSystemTimeMs(10_000);
        rig.send(turn(0));
        rig.send(turn(1));
        rig.send(turn(3)); // held
        rig.send(new Handoff("h1", null, "qwen", Target.LOCAL, null, 9L, null)); // waiting, remembered
        rig.close();
        assertThat(rig.count(rig.entries)).isPositive();
        assertThat(rig.count(rig.ids)).isPositive();
        rig.processor.punctuate(10_000 + 40_000);
        assertThat(rig.forwarded("snapshots")).as("the waiting hand-off is released first").hasSize(1);
        assertThat(rig.skeletons.get(KEY)).isNull();
        assertThat(rig.count(rig.entries)).isZero();
        assertThat(rig.count(rig.ids)).isZero();
        assertThat(rig.count(rig.timers)).isZero();
    }

    @Test
    void shouldMigrateAVersion1BlobOnTheSessionsNextEvent() throws Exception {
        byte[] blob = Files.readAllBytes(Path.of("..", "engine", "src", "test", "resources", "state",
                "v1-session-blob.bin"));
        Policy p = Policy.defaults();
        Rig rig = new Rig(p, SessionProcessorOptions.DEFAULT_DECODED_CACHE_BYTES);
        rig.skeletons.put(KEY, blob);
        Handoff h = new Handoff("after-upgrade", null, "opus", Target.LOCAL, null, null, null);
        SessionState expected = StateV1Reader.read(blob);
        expected.offerHandoff(h, 1_000, p, 0);
        Snapshot want = ContextEngine.render(T, S, expected, new ReadyHandoff(h, 1_000, null), p);

        rig.send(h);
        // the processor adds where the session's input came from (provenance); the rest is the engine's rendering
        assertThat(rig.forwarded("snapshots")).singleElement()
                .satisfies(o -> assertThat(((Snapshot) o).withProvenance(want.provenance())).isEqualTo(want));
        assertThat(StateFormat.versionOf(rig.skeletons.get(KEY))).isEqualTo(StateFormat.VERSION);
        assertThat(rig.entries(EntryKind.TURN)).isEqualTo(expected.body().size() + 2);
        rig.send(new Handoff("h-1", null, "opus", Target.LOCAL, null, null, null)); // remembered before the upgrade
        assertThat(rig.forwarded("snapshots")).hasSize(1);
    }

    @Test
    void shouldTakeTheInputRangeOfAVersion2SessionFromItsFormerStoreOnce() {
        Policy p = Policy.defaults();
        Rig rig = new Rig(p, SessionProcessorOptions.DEFAULT_DECODED_CACHE_BYTES);
        for (long seq = 0; seq < 5; seq++) rig.send(turn(seq)); // offsets 0..4
        // Turn what is stored into what format 2 stored: the skeleton without its input range (a v3 skeleton without
        // one ends with the byte 0 for "no range"), entries with version byte 2, the range in its former store.
        SessionState stored = SessionRepository.read(KEY, rig.skeletons, rig.entries, rig.ids);
        assertThat(stored.inputRange()).isEqualTo(new InputRange("baton.session-events", 0, 0L, 4L, null, null));
        stored.inputRange(null);
        byte[] v3 = StateStorage.InMemory.of(stored).skeleton;
        assertThat(v3[v3.length - 1]).isZero();
        byte[] v2 = java.util.Arrays.copyOf(v3, v3.length - 1);
        v2[0] = 2;
        rig.skeletons.put(KEY, v2);
        List<KeyValue<Bytes, byte[]>> entries = new ArrayList<>();
        rig.entries.all().forEachRemaining(entries::add);
        for (KeyValue<Bytes, byte[]> e : entries) {
            byte[] value = e.value.clone();
            value[0] = 2;
            rig.entries.put(e.key, value);
        }
        rig.provenance.put(KEY, formerRange("baton.session-events", 0, 0L, 4L));

        rig.send(new Handoff("after-upgrade", null, "opus", Target.LOCAL, null, null, null)); // offset 5
        assertThat(rig.forwarded("snapshots")).singleElement().satisfies(o -> assertThat(((Snapshot) o).provenance())
                .isEqualTo(new InputRange("baton.session-events", 0, 0L, 5L, null, null)));
        assertThat(StateFormat.versionOf(rig.skeletons.get(KEY))).isEqualTo(StateFormat.VERSION);
        assertThat(rig.provenance.get(KEY)).as("taken from the former store once, then deleted there").isNull();

        rig.send(new Handoff("later", null, "opus", Target.LOCAL, null, null, null)); // offset 6
        assertThat(rig.forwarded("snapshots")).hasSize(2).last().satisfies(o -> assertThat(((Snapshot) o).provenance())
                .isEqualTo(new InputRange("baton.session-events", 0, 0L, 6L, null, null)));
        assertThat(rig.count(rig.provenance)).isZero();
    }

    @Test
    void shouldNotTouchTheFormerRangeStoreForSessionsStoredSinceVersion3() {
        Rig rig = new Rig(Policy.defaults(), SessionProcessorOptions.DEFAULT_DECODED_CACHE_BYTES);
        for (long seq = 0; seq < 3; seq++) rig.send(turn(seq));
        rig.send(new Handoff("h", null, "opus", Target.LOCAL, null, null, null));
        assertThat(rig.forwarded("snapshots")).singleElement().satisfies(o -> assertThat(((Snapshot) o).provenance())
                .isEqualTo(new InputRange("baton.session-events", 0, 0L, 3L, null, null)));
        assertThat(rig.count(rig.provenance)).isZero();
    }

    /** A value of format 2's range store with a Kafka half only, as format 2 wrote it (docs/state-format.md). */
    private static byte[] formerRange(String topic, int partition, long firstOffset, long lastOffset) {
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        return java.nio.ByteBuffer.allocate(2 + 4 + t.length + 4 + 16).put((byte) 1).put((byte) 1).putInt(t.length)
                .put(t).putInt(partition).putLong(firstOffset).putLong(lastOffset).array();
    }
}
