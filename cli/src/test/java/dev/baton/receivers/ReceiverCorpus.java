package dev.baton.receivers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.consumer.SnapshotPrompts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The corpus of hand-offs the receiver dialects are checked on: every recorded run and the generated sessions, each
 * handed off as {@link HandoffPlan} says, once under the default policy and once (at its end) under a tenant policy
 * with an 8,000-character transcript budget (and a small trail allowance, so manifests appear), rendered by the real topology. Written as JSON-form snapshot lines to
 * {@code cli/target/receivers-corpus/recorded.jsonl} and {@code generated.jsonl}.
 */
final class ReceiverCorpus {
    static final int TIGHT_BUDGET_CHARS = 8_000;
    /** Small enough that older trails are listed in a manifest instead of inlined (R3). */
    static final int TIGHT_INLINE_TRAIL_BYTES = 2_000;
    static final long SEED = 20_260_101L;
    static final int GENERATED_SESSIONS = 36;

    /**
     * One rendered part of the corpus: its name, the file written, its snapshot lines (and their trees), its planned
     * hand-offs and the dead letters (none expected).
     */
    record Part(String name, Path file, List<String> snapshots, List<JsonNode> parsed, int plannedHandoffs,
                List<String> deadLetters) {
    }

    private static RecordedCorpus recorded;
    private static List<Part> parts;

    private ReceiverCorpus() {
    }

    /** Both parts, rendered once per JVM (the test classes share them). */
    static synchronized List<Part> renderAll(Path shared) throws IOException {
        if (parts == null) {
            long t0 = System.nanoTime();
            recorded = RecordedCorpus.load(shared);
            long t1 = System.nanoTime();
            Path out = outputDir();
            parts = List.of(render("recorded", recorded.sessions(), out.resolve("recorded.jsonl")),
                    render("generated", GeneratedSessions.generate(SEED, GENERATED_SESSIONS),
                            out.resolve("generated.jsonl")));
            System.out.printf("receivers corpus: converted in %d ms, rendered in %d ms%n", (t1 - t0) / 1_000_000,
                    (System.nanoTime() - t1) / 1_000_000);
        }
        return parts;
    }

    /** The recorded runs, once {@link #renderAll} ran. */
    static synchronized RecordedCorpus recorded() {
        return recorded;
    }

    static Part render(String name, List<RecordedSession> sessions, Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        int planned = 0;
        for (RecordedSession s : sessions) {
            for (List<String> withHandoffs : List.of(HandoffPlan.lines(s, false),
                    HandoffPlan.lines(s.inTenant(tight(s.tenant())), true))) {
                lines.addAll(withHandoffs);
                planned += (int) withHandoffs.stream().filter(l -> l.contains("\"handoff\":{")).count();
            }
        }
        List<String> snapshots;
        List<String> dead;
        try (TopologyRenderer topology = new TopologyRenderer()) {
            for (RecordedSession s : sessions.subList(0, Math.min(1, sessions.size()))) {
                String tenant = tight(s.tenant());
                topology.policy(tenant, "{\"tenant_id\":\"" + tenant + "\",\"transcript_budget_chars\":"
                        + TIGHT_BUDGET_CHARS + ",\"expanded_trail_turns\":1,\"inline_trail_bytes\":"
                        + TIGHT_INLINE_TRAIL_BYTES + "}");
            }
            snapshots = topology.render(lines);
            dead = topology.deadLetters();
        }
        Files.createDirectories(file.getParent());
        Files.writeString(file, String.join("\n", snapshots) + (snapshots.isEmpty() ? "" : "\n"), StandardCharsets.UTF_8);
        List<JsonNode> parsed = new ArrayList<>();
        for (String line : snapshots) parsed.add(SnapshotPrompts.readJson(line)); // arguments as their exact text
        return new Part(name, file, snapshots, parsed, planned, dead);
    }

    static String tight(String tenant) {
        return tenant + "-tight";
    }

    static Path outputDir() {
        return SharedFolder.repository().resolve("cli/target/receivers-corpus");
    }
}
