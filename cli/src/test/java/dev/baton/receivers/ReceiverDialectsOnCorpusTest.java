package dev.baton.receivers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.consumer.dialect.Dialect;
import dev.baton.consumer.dialect.ReceiverRequest;
import dev.baton.consumer.dialect.ReceiverRequests;
import dev.baton.consumer.dialect.RequestCheck;
import dev.baton.consumer.dialect.RequestOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The receiver dialects (docs/receivers.md) on the corpus of real and generated hand-offs ({@link ReceiverCorpus}):
 * every LOCAL snapshot in every dialect passes the Java mapping's {@link RequestCheck}; the Node and Python kits build
 * the same requests (as parsed JSON values); every chat-template profile renders through every template it claims
 * (the Node kit's {@code corpus-check.js}). The counts go to {@code cli/target/receivers-corpus/report.json}.
 */
class ReceiverDialectsOnCorpusTest {
    private static final int FIRST_CASES = 40;
    private static Path shared;
    private static final List<ReceiverCorpus.Part> PARTS = new ArrayList<>();

    @BeforeAll
    static void render() throws IOException {
        shared = SharedFolder.require();
        PARTS.clear();
        PARTS.addAll(ReceiverCorpus.renderAll(shared));
        CorpusReport.ROOT.putPOJO("recorded_files", ReceiverCorpus.recorded().files());
        ObjectNode snapshots = CorpusReport.ROOT.putObject("snapshots");
        for (ReceiverCorpus.Part p : PARTS) {
            ObjectNode o = snapshots.putObject(p.name());
            o.put("total", p.snapshots().size());
            o.put("local", locals(p).size());
            o.put("claude_cli", p.snapshots().size() - locals(p).size());
        }
        ObjectNode kinds = CorpusReport.ROOT.putObject("truncations");
        for (ReceiverCorpus.Part p : PARTS) {
            for (JsonNode s : locals(p)) {
                s.path("truncations").forEach(t -> kinds.put(t.path("kind").asText(),
                        kinds.path(t.path("kind").asText()).asInt() + 1));
            }
        }
    }

    @AfterAll
    static void writeReport() throws IOException {
        CorpusReport.write();
    }

    @Test
    void shouldBuildEveryLocalSnapshotInEveryDialectWithoutViolations() {
        Map<String, Integer> requests = new LinkedHashMap<>();
        Map<String, Integer> violations = new LinkedHashMap<>();
        Map<String, List<Double>> overhead = new LinkedHashMap<>();
        List<String> cases = new ArrayList<>();
        for (ReceiverCorpus.Part p : PARTS) {
            for (JsonNode s : locals(p)) {
                double base = bytes(s.path("framing").path("system_prompt").asText()) + bytes(s.path("brick").asText())
                        + bytes(s.path("messages").toString());
                for (Dialect d : Dialect.all()) {
                    ReceiverRequest r = ReceiverRequests.build(s, d, RequestOptions.defaults());
                    requests.merge(d.name(), 1, Integer::sum);
                    overhead.computeIfAbsent(d.name(), k -> new ArrayList<>()).add(bytes(r.toJson()) / base);
                    List<String> v = RequestCheck.violations(s, d, r);
                    violations.merge(d.name(), v.isEmpty() ? 0 : 1, Integer::sum);
                    if (!v.isEmpty() && cases.size() < FIRST_CASES) {
                        cases.add(s.path("snapshot_id").asText() + " " + d.name() + ": " + v);
                    }
                }
            }
        }
        CorpusReport.ROOT.putPOJO("requests_per_dialect", requests);
        CorpusReport.ROOT.putPOJO("violations_per_dialect", violations);
        ObjectNode o = CorpusReport.ROOT.putObject("request_overhead_per_dialect");
        overhead.forEach((d, ratios) -> o.set(d, CorpusReport.spread(ratios)));
        CorpusReport.ROOT.putPOJO("first_violations", cases);
        assertThat(cases).as("snapshot dialect: violations").isEmpty();
    }

    @Test
    void shouldGiveTheJavaRequestsInTheNodeKit() throws Exception {
        String node = KitProcess.require("node");
        compareKit("node", List.of(node, "dialects.js"), "examples/consumers/node");

    }

    @Test
    void shouldGiveTheJavaRequestsInThePythonKit() throws Exception {
        String python = KitProcess.require("python3");
        compareKit("python", List.of(python, "dialects.py"), "examples/consumers/python");
    }

    @Test
    void shouldRenderEveryTemplateProfileThroughEveryClaimedTemplate() throws Exception {
        String node = KitProcess.require("node");
        Map<String, Integer> renders = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        for (ReceiverCorpus.Part p : PARTS) {
            List<String> out = new ArrayList<>();
            int code = KitProcess.run(List.of(node, "corpus-check.js", p.file().toString()),
                    SharedFolder.repository().resolve("examples/consumers/node"),
                    Map.of("SHARED_DATA_DIR", shared.toString()), out::add);
            assertThat(out).as("corpus-check output of " + p.name()).hasSize(1);
            JsonNode report = JsonValues.parse(out.get(0));
            assertThat(report.path("snapshots").asInt()).isEqualTo(locals(p).size());
            for (var t : report.path("templates").properties()) {
                renders.merge(t.getKey(), t.getValue().path("rendered").asInt(), Integer::sum);
                if (t.getValue().path("failed").asInt() > 0) {
                    failures.add(p.name() + " " + t.getKey() + ": " + t.getValue().path("failed").asInt()
                            + " failed, e.g. " + t.getValue().path("reasons"));
                }
            }
            if (code != 0 && failures.isEmpty()) failures.add(p.name() + ": corpus-check exit " + code);
        }
        CorpusReport.ROOT.putPOJO("template_renders", renders);
        CorpusReport.ROOT.putPOJO("template_failures", failures);
        assertThat(renders).isNotEmpty();
        assertThat(failures).isEmpty();
    }

    /**
     * Every LOCAL snapshot of the corpus, in every API dialect, through the providers' official Node SDKs (openai,
     * {@code @anthropic-ai/sdk}, {@code @google/genai}) to a loopback server: the body each SDK sends equals the
     * dialect's request and keeps the provider's rules ({@code examples/consumers/node/sdk.test.js}).
     */
    @Test
    void shouldSendEveryLocalSnapshotThroughTheProvidersNodeSdks() throws Exception {
        String node = KitProcess.require("node");
        String files = PARTS.stream().map(p -> p.file().toString())
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        List<String> out = new ArrayList<>();
        int code = KitProcess.run(List.of(node, "--test", "sdk.test.js"),
                SharedFolder.repository().resolve("examples/consumers/node"),
                Map.of("BATON_SNAPSHOT_CORPUS", files), out::add);
        if (out.contains("# skipped 3") && !"true".equals(System.getenv("CI"))) {
            org.junit.jupiter.api.Assumptions.abort("the Node kit's SDKs are not installed (npm ci)");
        }
        assertThat(code).as(String.join("\n", out)).isZero();
        assertThat(out).as("every SDK test ran, none skipped").contains("# pass 3").contains("# skipped 0");
        CorpusReport.ROOT.put("node_sdk_round_trips", 4 * PARTS.stream().mapToInt(p -> locals(p).size()).sum());
    }

    /** Runs a kit's {@code dialects} tool on each part and compares every line with the Java request. */
    private static void compareKit(String kit, List<String> command, String dir) throws Exception {
        int same = 0;
        List<String> different = new ArrayList<>();
        for (ReceiverCorpus.Part p : PARTS) {
            Map<String, JsonNode> byId = new LinkedHashMap<>();
            for (JsonNode s : locals(p)) byId.put(s.path("snapshot_id").asText(), s);
            List<String> cmd = new ArrayList<>(command);
            cmd.add(p.file().toString());
            int[] lines = {0};
            List<String> diffs = new ArrayList<>();
            int code = KitProcess.run(cmd, SharedFolder.repository().resolve(dir), Map.of(), line -> {
                lines[0]++;
                JsonNode got = JsonValues.parse(line);
                String id = got.path("snapshot_id").asText();
                Dialect d = Dialect.parse(got.path("dialect").asText());
                ReceiverRequest java = ReceiverRequests.build(byId.get(id), d, RequestOptions.defaults());
                String diff = JsonValues.firstDifference(JsonValues.parse(java.toJson()), got.path("request"), "request");
                if (diff == null) {
                    diff = JsonValues.firstDifference(java.idMapJson(), got.path("id_map"), "id_map");
                }
                if (diff != null) diffs.add(id + " " + d.name() + ": " + diff);
            });
            assertThat(code).as(kit + " exit code on " + p.name()).isZero();
            assertThat(lines[0]).as(kit + " lines for " + p.name()).isEqualTo(byId.size() * Dialect.all().size());
            same += lines[0] - diffs.size();
            different.addAll(diffs);
        }
        ObjectNode kits = CorpusReport.ROOT.has("kits") ? (ObjectNode) CorpusReport.ROOT.get("kits")
                : CorpusReport.ROOT.putObject("kits");
        ObjectNode o = kits.putObject(kit);
        o.put("same_as_java", same);
        o.put("different", different.size());
        o.putPOJO("first_differences", different.subList(0, Math.min(FIRST_CASES, different.size())));
        assertThat(different).as(kit + " requests that differ from Java's").isEmpty();
    }

    private static List<JsonNode> locals(ReceiverCorpus.Part p) {
        return p.parsed().stream().filter(s -> "LOCAL".equals(s.path("target").asText())).toList();
    }

    private static double bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
