package dev.baton.topology;

import dev.baton.config.BatonConfig;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/contract.md, "Bounded records": what Baton writes fits {@code baton.max-output-bytes}, whatever the input. */
class BoundedRecordsTest {
    private static final int MIB = 1024 * 1024;
    /** A policy whose own bound fits 1 MiB. */
    private static final Map<String, String> POLICY = Map.of(
            "baton.policy.transcript_budget_chars", "100000",
            "baton.policy.inline_trail_bytes", "4096");
    /** That policy under a 1 MiB limit. */
    private static final Map<String, String> ONE_MIB = Map.of(
            BatonConfig.MAX_OUTPUT_BYTES, Integer.toString(MIB),
            "baton.policy.transcript_budget_chars", "100000",
            "baton.policy.inline_trail_bytes", "4096");

    @Test
    void shouldRenderASessionOfManyTinyMessagesAgainWithALowerBudgetUntilItFits() {
        try (Harness h = new Harness(ONE_MIB)) {
            h.send(h.turn("t", "tiny", 0, "user", "USER", "task"));
            // 20 turns of 200 tiny tool steps each (12 of them expanded or inlined): 2,400 narrated messages of ~28 characters
            for (int i = 1; i <= 20; i++) h.send(steps(h, "tiny", i, 200));
            h.send(h.handoff("t", "tiny", "h1", "a", "c", null));
            // another session after it still flows
            h.send(h.turn("t", "other", 0, "user", "USER", "hello"));
            h.send(h.handoff("t", "other", "h2", null, "c", null));

            List<Harness.Out> out = h.readSnapshots();
            assertThat(out).extracting(Harness.Out::handoffId).containsExactly("h1", "h2");
            Harness.Out tiny = out.get(0);
            long bytes = tiny.value().toString().getBytes(StandardCharsets.UTF_8).length;
            assertThat(bytes).isLessThan(MIB);
            // unlimited, about 2,400 of them (67,000 characters) would be kept: see the next test
            assertThat(tiny.value().get("stats").get("message_chars").asLong()).isLessThanOrEqualTo(50_000);
            assertThat(tiny.truncationKinds()).isNotEmpty();
            assertThat(h.readDeadLetters()).isEmpty();
        }
    }

    @Test
    void shouldKeepTheBudgetWhenTheLimitIsNotReached() {
        try (Harness h = new Harness(POLICY)) {
            h.send(h.turn("t", "tiny", 0, "user", "USER", "task"));
            for (int i = 1; i <= 20; i++) h.send(steps(h, "tiny", i, 200));
            h.send(h.handoff("t", "tiny", "h1", "a", "c", null));
            assertThat(h.readSnapshots()).singleElement().satisfies(s ->
                    assertThat(s.value().get("stats").get("message_chars").asLong()).isGreaterThan(60_000));
        }
    }

    /** An ASSISTANT turn of agent a with {@code n} tool steps of empty arguments and results. */
    private static com.fasterxml.jackson.databind.node.ObjectNode steps(Harness h, String session, int seq, int n) {
        var t = h.turn("t", session, seq, "a", "ASSISTANT", "");
        var trail = ((com.fasterxml.jackson.databind.node.ObjectNode) t.get("turn")).putArray("trail");
        for (int k = 0; k < n; k++) {
            trail.addObject().put("call_id", "c" + seq + "-" + k).put("tool", "t").put("result", "")
                    .put("status", "OK").putObject("arguments");
        }
        return t;
    }

    @Test
    void shouldRefuseATenantPolicyWhoseSnapshotsCannotFitAndKeepTheLastGoodOne() {
        try (Harness h = new Harness()) {
            h.policy("t", "{\"tenant_id\":\"t\",\"transcript_budget_chars\":3000}");
            h.send(h.turn("t", "s", 0, "user", "USER", "task")); // the good policy is in use
            h.policy("t", "{\"tenant_id\":\"t\",\"transcript_budget_chars\":5000000}"); // 30 MB of JSON: refused
            for (int i = 1; i < 10; i++) h.send(h.turn("t", "s", i, "a", "ASSISTANT", "y".repeat(1_000)));
            h.send(h.handoff("t", "s", "h1", "a", "c", null));
            assertThat(h.readSnapshots()).singleElement().satisfies(s ->
                    assertThat(s.value().get("stats").get("message_chars").asLong()).isLessThanOrEqualTo(3_000));
        }
    }
}
