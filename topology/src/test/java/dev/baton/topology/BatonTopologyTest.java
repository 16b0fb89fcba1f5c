package dev.baton.topology;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.config.BatonConfig;
import dev.baton.engine.model.SessionKey;
import dev.baton.processor.SessionContextProcessor;
import dev.baton.processor.SessionRepository;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Behaviour of the whole topology through {@link TopologyTestDriver}: ordering, duplicates, waits, expiry. */
class BatonTopologyTest {
    private static final String T = "acme";
    private static final String S = "s1";
    private static final String KEY = SessionKey.of(T, S).toString();

    @Test
    void shouldApplyTurnsInOrderAndEmitOneSnapshotPerHandoff() {
        try (Harness h = new Harness()) {
            h.send(h.turn(T, S, 0, "user", "USER", "fix the build"));
            h.send(h.turn(T, S, 1, "planner", "ASSISTANT", "looking"));
            h.send(h.handoff(T, S, "h1", "planner", "coder", null));

            List<Harness.Out> out = h.readSnapshots();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).key()).isEqualTo(KEY);
            assertThat(out.get(0).handoffId()).isEqualTo("h1");
            assertThat(out.get(0).value().get("snapshot_id").asText()).isEqualTo("acme/s1/h1");
            assertThat(out.get(0).asOfSeq()).isEqualTo(1);
            assertThat(out.get(0).turnCount()).isEqualTo(2);
            assertThat(h.metric("applied-turns-total")).isEqualTo(2);
            assertThat(h.metric("snapshots-emitted-total")).isEqualTo(1);
            assertThat(h.readDeadLetters()).isEmpty();
        }
    }

    @Test
    void shouldCountDecodedStateCacheHitsAndMissesPerEventOfAStoredSession() {
        List<String> values = new java.util.ArrayList<>();
        // The default cache keeps the session decoded; a zero budget keeps nothing, so every event reads it back.
        for (String cacheBytes : List.of("33554432", "0")) {
            try (Harness h = new Harness(Map.of(BatonConfig.STATE_CACHE_MAX_BYTES, cacheBytes))) {
                h.send(h.turn(T, S, 0, "user", "USER", "fix the build")); // a new session: neither
                h.send(h.turn(T, S, 1, "planner", "ASSISTANT", "looking"));
                h.send(h.turn(T, S, 2, "user", "USER", "and the tests"));
                h.send(h.handoff(T, S, "h1", "planner", "coder", null));
                boolean cached = !cacheBytes.equals("0");
                assertThat(h.metric("decoded-state-cache-hits-total")).as(cacheBytes).isEqualTo(cached ? 3 : 0);
                assertThat(h.metric("decoded-state-cache-misses-total")).as(cacheBytes).isEqualTo(cached ? 0 : 3);
                values.add(h.readSnapshots().get(0).value().toString());
            }
        }
        assertThat(values.get(1)).as("the cache changes no snapshot").isEqualTo(values.get(0));
    }

    @Test
    void shouldWriteNoChangelogWhenStateChangelogIsOffAndTheSameSnapshots() {
        List<String> values = new java.util.ArrayList<>();
        for (String changelog : List.of("true", "false")) {
            try (Harness h = new Harness(Map.of(BatonConfig.STATE_CHANGELOG, changelog))) {
                h.send(h.turn(T, S, 0, "user", "USER", "fix the build"));
                h.send(h.turn(T, S, 1, "planner", "ASSISTANT", "looking"));
                h.send(h.handoff(T, S, "h1", "planner", "coder", null));
                values.add(h.readSnapshots().get(0).value().toString());
                Set<String> changelogs = new HashSet<>();
                for (String topic : h.driver.producedTopicNames()) {
                    if (topic.endsWith("-changelog")) changelogs.add(topic);
                }
                if (changelog.equals("true")) {
                    assertThat(changelogs).as("changelog topics written").isNotEmpty();
                } else {
                    assertThat(changelogs).as("changelog topics written").isEmpty();
                }
            }
        }
        assertThat(values.get(1)).isEqualTo(values.get(0));
    }

    @Test
    void shouldIgnoreAndCountARepeatedSeq() {
        try (Harness h = new Harness()) {
            h.send(h.turn(T, S, 0, "user", "USER", "first copy"));
            h.send(h.turn(T, S, 0, "user", "USER", "second copy"));
            h.send(h.handoff(T, S, "h1", null, "coder", null));

            assertThat(h.readSnapshots()).singleElement().satisfies(s -> assertThat(s.turnCount()).isEqualTo(1));
            assertThat(h.metric("duplicate-turns-total")).isEqualTo(1);
            assertThat(h.metric("applied-turns-total")).isEqualTo(1);
            assertThat(h.readDeadLetters()).isEmpty();
        }
    }

    @Test
    void shouldHoldATurnAfterAGapUntilTheGapFills() {
        try (Harness h = new Harness()) {
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            h.send(h.turn(T, S, 2, "planner", "ASSISTANT", "after the gap"));
            h.send(h.handoff(T, S, "h1", null, "coder", null));
            h.send(h.turn(T, S, 1, "planner", "ASSISTANT", "fills the gap"));
            h.send(h.handoff(T, S, "h2", null, "coder", null));

            List<Harness.Out> out = h.readSnapshots();
            assertThat(out).extracting(Harness.Out::handoffId).containsExactly("h1", "h2");
            assertThat(out.get(0).asOfSeq()).isEqualTo(0);   // seq 2 was held, not applied
            assertThat(out.get(1).asOfSeq()).isEqualTo(2);   // seq 1 filled the gap, seq 2 followed
            assertThat(out.get(1).turnCount()).isEqualTo(3);
            assertThat(out.get(1).truncationKinds()).doesNotContain("TURNS_MISSING");
            assertThat(h.metric("applied-turns-total")).isEqualTo(3);
        }
    }

    @Test
    void shouldReleaseAParkedHandoffWhenItsTurnArrives() {
        try (Harness h = new Harness()) {
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            h.send(h.handoff(T, S, "h1", "planner", "coder", 1L));
            assertThat(h.readSnapshots()).isEmpty();
            assertThat(h.metric("parked-handoffs-total")).isEqualTo(1);

            h.send(h.turn(T, S, 1, "planner", "ASSISTANT", "the plan"));
            assertThat(h.readSnapshots()).singleElement().satisfies(s -> {
                assertThat(s.handoffId()).isEqualTo("h1");
                assertThat(s.asOfSeq()).isEqualTo(1);
                assertThat(s.truncationKinds()).doesNotContain("TURNS_MISSING");
            });
        }
    }

    @Test
    void shouldReleaseAParkedHandoffOnTheWallClockWithTurnsMissing() {
        try (Harness h = new Harness()) {
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            h.send(h.handoff(T, S, "h1", "planner", "coder", 3L));
            h.advance(Duration.ofSeconds(10));
            assertThat(h.readSnapshots()).isEmpty();

            h.advance(Duration.ofSeconds(25)); // past the default 30 s hand-off wait
            assertThat(h.readSnapshots()).singleElement().satisfies(s -> {
                assertThat(s.handoffId()).isEqualTo("h1");
                assertThat(s.asOfSeq()).isEqualTo(0);
                assertThat(s.truncationKinds()).contains("TURNS_MISSING");
            });
        }
    }

    @Test
    void shouldNeverEmitASecondSnapshotForARepeatedHandoffId() {
        try (Harness h = new Harness()) {
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            h.send(h.handoff(T, S, "h1", null, "coder", null));
            h.send(h.turn(T, S, 1, "coder", "ASSISTANT", "done"));
            h.send(h.handoff(T, S, "h1", null, "coder", null));

            assertThat(h.readSnapshots()).singleElement().satisfies(s -> assertThat(s.asOfSeq()).isEqualTo(0));
            assertThat(h.metric("duplicate-handoffs-total")).isEqualTo(1);
            assertThat(h.readDeadLetters()).isEmpty();
        }
    }

    @Test
    void shouldKeepAClosedSessionThroughTheGraceThenDeleteIt() {
        try (Harness h = new Harness(Map.of("baton.policy.closed_grace_millis", "60000"))) {
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            h.send(h.closed(T, S));
            h.advance(Duration.ofSeconds(30));
            assertThat(h.sessionStore().get(KEY)).isNotNull();
            h.send(h.handoff(T, S, "late", null, "coder", null)); // late hand-offs work inside the grace
            assertThat(h.readSnapshots()).singleElement().satisfies(s -> assertThat(s.turnCount()).isEqualTo(1));

            h.advance(Duration.ofSeconds(31)); // past the grace measured from Closed
            assertThat(h.sessionStore().get(KEY)).isNull();
            assertThat(h.metric("expired-sessions-total")).isEqualTo(1);
        }
    }

    @Test
    void shouldDeleteAnIdleSessionAfterItsTtl() {
        try (Harness h = new Harness(Map.of("baton.policy.idle_ttl_millis", "300000"))) {
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            h.advance(Duration.ofMinutes(4));
            assertThat(h.sessionStore().get(KEY)).isNotNull();

            h.advance(Duration.ofMinutes(2)); // TTL 5 min, rounded up to the next minute by the timer index
            assertThat(h.sessionStore().get(KEY)).isNull();
            assertThat(h.timerStore().all()).toIterable().isEmpty();
        }
    }

    @Test
    void shouldKeepOneTimerEntryPerSessionAtItsNextDueTime() {
        try (Harness h = new Harness()) {
            long t0 = Harness.T0.toEpochMilli();
            long idleDue = t0 + Duration.ofDays(7).toMillis(); // T0 is on a whole minute: no rounding needed
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            assertThat(timerEntries(h)).containsExactly(idleDue + "/" + KEY);

            h.advance(Duration.ofSeconds(5));
            h.send(h.turn(T, S, 2, "user", "USER", "held behind a gap"));
            assertThat(timerEntries(h)).containsExactly((t0 + 5_000 + 30_000) + "/" + KEY);

            h.advance(Duration.ofSeconds(31)); // the gap is settled; only the idle TTL is left
            assertThat(timerEntries(h)).containsExactly(
                    (idleDue + 60_000) + "/" + KEY); // last event at T0+5s, rounded up to the next minute
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"json", "avro"})
    void shouldApplyATenantPolicyToItsTenantOnly(String format) {
        try (Harness h = new Harness(Map.of(BatonConfig.FORMAT, format))) {
            h.policy("small", "{\"tenant_id\":\"small\",\"transcript_budget_chars\":2000,"
                    + "\"handoff_wait_millis\":2000}");
            String longText = "word ".repeat(2_000); // 10,000 characters
            for (String tenant : List.of("small", "large")) {
                h.send(h.turn(tenant, S, 0, "user", "USER", "task"));
                h.send(h.turn(tenant, S, 1, "planner", "ASSISTANT", longText));
                h.send(h.turn(tenant, S, 2, "user", "USER", longText));
                h.send(h.handoff(tenant, S, "h1", null, "coder", null));
            }
            List<Harness.Out> out = h.readSnapshots();
            assertThat(out).extracting(Harness.Out::key).containsExactly("small/" + S, "large/" + S);
            assertThat(messageChars(out.get(0))).isLessThanOrEqualTo(2_000);
            assertThat(messageChars(out.get(1))).isGreaterThan(20_000);

            // the hand-off wait: 2 s for "small", the default 30 s for "large"
            for (String tenant : List.of("small", "large")) h.send(h.handoff(tenant, S, "h2", null, "coder", 9L));
            h.advance(Duration.ofSeconds(3));
            assertThat(h.readSnapshots()).extracting(Harness.Out::key).containsExactly("small/" + S);

            h.policy("small", null); // tombstone: back to the defaults
            h.send(h.handoff("small", S, "h3", null, "coder", 9L));
            h.advance(Duration.ofSeconds(3));
            assertThat(h.readSnapshots()).isEmpty();
        }
    }

    /**
     * Issue 21: the policy in force is a function of the policies topic alone. Two histories of the same records: a
     * task that used the valid policy before the bad record arrived, and one that starts after both (a restart, a
     * rebalance, an evicted cache). Both keep the last valid policy and write the same snapshot.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"json", "avro"})
    void shouldKeepTheLastValidPolicyWhateverTheTaskSawBefore(String format) {
        String longText = "word ".repeat(2_000); // 10,000 characters
        List<List<String>> outputs = new java.util.ArrayList<>();
        for (boolean eventBeforeTheBadRecord : List.of(true, false)) {
            try (Harness h = new Harness(Map.of(BatonConfig.FORMAT, format))) {
                h.policy("small", "{\"tenant_id\":\"small\",\"transcript_budget_chars\":2000}");
                if (eventBeforeTheBadRecord) h.send(h.turn("small", S, 0, "user", "USER", "task"));
                h.policy("small", "{\"tenant_id\":\"small\",\"max_waiting_handoffs\":0}"); // refused
                if (!eventBeforeTheBadRecord) h.send(h.turn("small", S, 0, "user", "USER", "task"));
                h.send(h.turn("small", S, 1, "planner", "ASSISTANT", longText));
                h.send(h.turn("small", S, 2, "user", "USER", longText));
                h.send(h.handoff("small", S, "h1", null, "coder", null));
                List<Harness.Out> out = h.readSnapshots();
                assertThat(out).hasSize(1);
                assertThat(messageChars(out.get(0))).as("the last valid policy's budget").isLessThanOrEqualTo(2_000);
                outputs.add(out.stream().map(o -> o.value().get("messages").toString()).toList());
            }
        }
        assertThat(outputs.get(1)).isEqualTo(outputs.get(0));
    }

    /** The policy store's updater cannot dead-letter (a global processor has no sink): it counts what it refuses. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"json", "avro"})
    void shouldCountARefusedPolicyRecordAndNotAValidOne(String format) {
        try (Harness h = new Harness(Map.of(BatonConfig.FORMAT, format))) {
            h.policy("small", "{\"tenant_id\":\"small\",\"transcript_budget_chars\":2000}");
            h.policy("small", null); // a tombstone is not refused either
            assertThat(h.metric("policy-records-refused-total")).isZero();

            h.policy("small", "{\"tenant_id\":\"small\",\"max_waiting_handoffs\":0}"); // out of bounds
            assertThat(h.metric("policy-records-refused-total")).isEqualTo(1);
            h.policy("other", "{\"tenant_id\":\"small\"}"); // the key is not the tenant_id
            assertThat(h.metric("policy-records-refused-total")).isEqualTo(2);
            h.policy("small", "{\"tenant_id\":\"small\",\"transcript_budget_chars\":3000}");
            assertThat(h.metric("policy-records-refused-total")).isEqualTo(2);
            assertThat(h.metric("dead-letters-total")).as("nothing dead-lettered").isZero();
        }
    }

    private static long messageChars(Harness.Out snapshot) {
        return snapshot.value().get("stats").get("message_chars").asLong();
    }

    @Test
    void shouldSettleEverythingOnTheControlRecordWithoutWallClock() {
        try (Harness h = new Harness(Map.of(BatonConfig.PUNCTUATE_WALL_CLOCK, "false"))) {
            h.send(h.turn(T, S, 0, "user", "USER", "task"));
            h.send(h.turn(T, S, 2, "planner", "ASSISTANT", "after a gap"));
            h.send(h.handoff(T, S, "h1", null, "coder", 2L));
            h.send(h.closed(T, S));
            h.advance(Duration.ofDays(8)); // no punctuation in backfill mode: nothing released, nothing deleted
            assertThat(h.readSnapshots()).isEmpty();
            assertThat(h.sessionStore().get(KEY)).isNotNull();
            assertThat(h.timerStore().all()).toIterable().isEmpty();

            h.settle(KEY);
            assertThat(h.readSnapshots()).singleElement().satisfies(s -> {
                assertThat(s.handoffId()).isEqualTo("h1");
                assertThat(s.asOfSeq()).isEqualTo(2);
                assertThat(s.truncationKinds()).contains("TURNS_MISSING");
            });
            assertThat(h.sessionStore().get(KEY)).isNotNull(); // closed sessions keep state to the end
            assertThat(h.readDeadLetters()).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"json", "avro"})
    void shouldEmitTheSnapshotsOfARealisticMultiAgentSession(String format) {
        try (Harness h = new Harness(Map.of(BatonConfig.FORMAT, format))) {
            h.send(h.turn(T, S, 0, "user", "USER", "The nightly build fails on module api; find out why."));
            ObjectNode plan = h.turn(T, S, 1, "planner", "ASSISTANT", "The failure is in the schema step.");
            plan.withObjectProperty("turn").putArray("trail").addObject().put("call_id", "c1").put("tool", "read_log")
                    .put("status", "OK").put("result", "error: schema mismatch").putObject("arguments")
                    .put("job", "nightly");
            h.send(plan);
            h.send(h.handoff(T, S, "h-coder", "planner", "coder", 1L));
            h.send(h.turn(T, S, 2, "coder", "ASSISTANT", "Patched the schema; build is green."));
            h.send(h.turn(T, S, 3, "user", "USER", "Thanks. Please review the patch."));
            ObjectNode review = h.handoff(T, S, "h-review", "coder", "reviewer", 3L);
            review.withObjectProperty("handoff").put("brief", "Review the schema patch.");
            h.send(review);
            h.send(h.handoff(T, "other", "h-x", null, "coder", null)); // another session, nothing applied
            h.send(h.closed(T, S));

            List<Harness.Out> out = h.readSnapshots();
            assertThat(out).extracting(Harness.Out::key).containsExactly(KEY, KEY, T + "/other");
            assertThat(out).extracting(Harness.Out::handoffId).containsExactly("h-coder", "h-review", "h-x");
            assertThat(out).extracting(Harness.Out::asOfSeq).containsExactly(1L, 3L, -1L);
            assertThat(out).extracting(Harness.Out::turnCount).containsExactly(2L, 4L, 0L);
            assertThat(out.get(1).value().get("to_agent").asText()).isEqualTo("reviewer");
            assertThat(out.get(1).value().get("from_agent").asText()).isEqualTo("coder");
            assertThat(out.get(1).value().get("framing").get("kind").asText()).isEqualTo("CONTINUITY");
            assertThat(out.get(2).value().get("framing").get("kind").asText()).isEqualTo("OWNER_FROM_START");
            assertThat(out.get(0).value().get("retention").get("expanded_seqs").get(0).asLong()).isEqualTo(1);
            assertThat(out.get(1).value().get("messages").size()).isPositive();
            assertThat(h.readDeadLetters()).isEmpty();
            assertThat(h.metric("render-total")).isEqualTo(3);
            assertThat(h.metric("snapshots-emitted-total")).isEqualTo(3);
        }
    }

    @Test
    void shouldNameEveryNodeAndStoreExplicitly() {
        try (Harness h = new Harness()) {
            TopologyDescription d = BatonTopology.buildTopology(h.config).describe();
            Set<String> nodes = new HashSet<>();
            Set<String> stores = new HashSet<>();
            d.subtopologies().forEach(s -> s.nodes().forEach(n -> {
                nodes.add(n.name());
                if (n instanceof TopologyDescription.Processor p) stores.addAll(p.stores());
            }));
            d.globalStores().forEach(g -> {
                nodes.add(g.source().name());
                nodes.add(g.processor().name());
                stores.addAll(g.processor().stores());
            });
            assertThat(nodes).allMatch(n -> n.startsWith("baton-"));
            assertThat(stores).containsExactlyInAnyOrder(SessionContextProcessor.SESSION_STORE,
                    SessionRepository.ENTRY_STORE, SessionRepository.HANDOFF_ID_STORE,
                    SessionContextProcessor.TIMER_STORE, SessionContextProcessor.POLICY_STORE,
                    dev.baton.processor.SessionProvenance.STORE);
        }
    }

    /** The timer index as "due-millis/session" strings (leading zeros dropped). */
    private static List<String> timerEntries(Harness h) {
        List<String> keys = new java.util.ArrayList<>();
        h.timerStore().all().forEachRemaining(kv -> keys.add(kv.key.replaceFirst("^0+", "")));
        return keys;
    }

}
