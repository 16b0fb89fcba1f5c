package dev.baton.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.config.BatonConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The call ledger end to end (docs/rendering.md, "Call ledger"): through the real topology, in both formats, the
 * snapshot's {@code call_ledger} groups identical calls, keeps calls that left the transcript window, and, with a
 * tenant policy naming side-effecting tools, the brick lists their calls as done.
 */
class CallLedgerTopologyTest {
    private static final String T = "acme";

    /**
     * In JSON and Avro, and with no decoded-state cache (every event reads the session back from its stored entries,
     * so the ledger goes through its own entries in the RocksDB store).
     */
    @ParameterizedTest(name = "{0}, state cache {1} bytes")
    @CsvSource({"json,33554432", "avro,33554432", "avro,0"})
    void shouldCarryTheCallLedgerInTheSnapshotAndListSideEffectsInTheBrick(String format, String cacheBytes)
            throws Exception {
        try (Harness h = new Harness(Map.of(BatonConfig.FORMAT, format, BatonConfig.STATE_CACHE_MAX_BYTES, cacheBytes))) {
            h.policy(T, "{\"tenant_id\":\"acme\",\"side_effect_tools\":\"apply_*, git_push\"}");
            h.send(h.turn(T, "s1", 0, "user", "USER", "fix the build"));
            h.send(act(h, 1, "qwen", step("c1", "run_tests", "{\"suite\": \"all\", \"fast\": true}", "FAILED 3", "ERROR")));
            h.send(act(h, 2, "qwen", step("c2", "apply_patch", "{\"file\":\"A.java\"}", "applied", "OK")));
            // the same test run, its arguments in another key order and spacing: one entry, counted twice
            h.send(act(h, 3, "qwen", step("c3", "run_tests", "{\"fast\":true,\"suite\":\"all\"}", "ok", "OK")));
            h.send(h.handoff(T, "s1", "h1", "qwen", "opus", null));
            h.send(h.turn(T, "s2", 0, "user", "USER", "no tools here"));
            h.send(h.handoff(T, "s2", "h1", null, "opus", null));

            List<Harness.Out> out = h.readSnapshots();
            assertThat(out).hasSize(2);
            JsonNode ledger = out.get(0).value().get("call_ledger");
            assertThat(ledger.get("calls").asLong()).isEqualTo(3);
            assertThat(ledger.get("dropped_entries").asLong()).isZero();
            JsonNode entries = ledger.get("entries");
            assertThat(entries).hasSize(2);
            JsonNode tests = entries.get(0);
            assertThat(tests.get("tool").asText()).isEqualTo("run_tests");
            assertThat(tests.get("count").asLong()).isEqualTo(2);
            assertThat(tests.get("ok").asLong()).isEqualTo(1);
            assertThat(tests.get("error").asLong()).isEqualTo(1);
            assertThat(tests.get("seq").asLong()).isEqualTo(3);
            assertThat(tests.get("first_seq").asLong()).isEqualTo(1);
            assertThat(tests.get("call_id").asText()).isEqualTo("c3");
            assertThat(tests.get("status").asText()).isEqualTo("OK");
            assertThat(tests.get("arguments_sha256").asText()).isEqualTo(sha256("{\"fast\":true,\"suite\":\"all\"}"));
            assertThat(tests.get("result_sha256").asText()).isEqualTo(sha256("ok"));
            assertThat(tests.get("result_bytes").asLong()).isEqualTo(2);
            assertThat(tests.get("visible").asText()).isEqualTo("narrated");
            assertThat(tests.get("side_effecting").asBoolean()).isFalse();
            JsonNode patch = entries.get(1);
            assertThat(patch.get("tool").asText()).isEqualTo("apply_patch");
            assertThat(patch.get("side_effecting").asBoolean()).isTrue();
            assertThat(out.get(0).value().get("brick").asText())
                    .contains("[done — side-effecting calls already made")
                    .contains("[done seq 2 qwen] apply_patch({\"file\":\"A.java\"}) → OK]")
                    .doesNotContain("[done seq 3");
            assertThat(out.get(0).value().get("content_sha256").asText()).hasSize(64);

            assertThat(out.get(1).value().get("call_ledger").isNull())
                    .as("a session without calls has no ledger (its snapshot bytes and hash are as before)").isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"json", "avro"})
    void shouldKeepCallsBeyondTheWindowAndBoundTheLedgerByThePolicy(String format) {
        try (Harness h = new Harness(Map.of(BatonConfig.FORMAT, format))) {
            h.policy(T, "{\"tenant_id\":\"acme\",\"call_ledger_entries\":3,\"transcript_budget_chars\":2000}");
            h.send(h.turn(T, "s1", 0, "user", "USER", "task"));
            for (int i = 1; i <= 10; i++) {
                h.send(act(h, i, "qwen", step("c" + i, "read_file", "{\"n\":" + i + "}", "x".repeat(600), "OK")));
            }
            h.send(h.handoff(T, "s1", "h1", "qwen", "qwen", null));
            JsonNode ledger = h.readSnapshots().get(0).value().get("call_ledger");
            assertThat(ledger.get("calls").asLong()).isEqualTo(10);
            assertThat(ledger.get("entries")).hasSize(3);
            assertThat(ledger.get("dropped_entries").asLong()).isEqualTo(7);
            assertThat(ledger.get("dropped_calls").asLong()).isEqualTo(7);
            assertThat(ledger.get("entries").get(0).get("seq").asLong()).isEqualTo(10);
            assertThat(ledger.get("entries").get(0).get("visible").asText()).isEqualTo("native");
            assertThat(ledger.get("entries").get(2).get("seq").asLong()).isEqualTo(8);

            h.policy(T, "{\"tenant_id\":\"acme\",\"call_ledger_entries\":0}");
            h.send(h.handoff(T, "s1", "h2", "qwen", "opus", null));
            assertThat(h.readSnapshots().get(0).value().get("call_ledger").isNull()).as("0: no ledger").isTrue();
        }
    }

    static ObjectNode step(String callId, String tool, String args, String result, String status) {
        ObjectNode s = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        s.put("call_id", callId);
        s.put("tool", tool);
        try {
            s.set("arguments", new com.fasterxml.jackson.databind.ObjectMapper().readTree(args));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(e);
        }
        s.put("result", result);
        s.put("status", status);
        return s;
    }

    static ObjectNode act(Harness h, long seq, String agent, ObjectNode... steps) {
        ObjectNode e = h.turn(T, "s1", seq, agent, "ASSISTANT", "step " + seq);
        ArrayNode trail = ((ObjectNode) e.get("turn")).putArray("trail");
        for (ObjectNode s : steps) trail.add(s);
        return e;
    }

    static String sha256(String s) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    }
}
