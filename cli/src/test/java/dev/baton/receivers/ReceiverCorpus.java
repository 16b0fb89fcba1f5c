package dev.baton.receivers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The corpus of hand-offs the receiver dialects are checked on: every recorded run and the generated sessions, each
 * handed off as {@link HandoffPlan} says, once under the default policy and once (at its end) under a tenant policy
 * with an 8,000-character transcript budget, rendered by the real topology. Written as JSON-form snapshot lines to
 * {@code cli/target/receivers-corpus/recorded.jsonl} and {@code generated.jsonl}.
 */
final class ReceiverCorpus {
    static final int TIGHT_BUDGET_CHARS = 8_000;
    static final long SEED = 20_260_101L;
    static final int GENERATED_SESSIONS = 36;

    /** One rendered part of the corpus: the file written, its snapshots, its planned hand-offs and dead letters. */
    record Part(Path file, List<String> snapshots, int plannedHandoffs, List<String> deadLetters) {
    }

    private ReceiverCorpus() {
    }

    static Part render(List<RecordedSession> sessions, Path file) throws IOException {
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
                        + TIGHT_BUDGET_CHARS + "}");
            }
            snapshots = topology.render(lines);
            dead = topology.deadLetters();
        }
        Files.createDirectories(file.getParent());
        Files.writeString(file, String.join("\n", snapshots) + (snapshots.isEmpty() ? "" : "\n"), StandardCharsets.UTF_8);
        return new Part(file, snapshots, planned, dead);
    }

    static String tight(String tenant) {
        return tenant + "-tight";
    }

    static Path outputDir() {
        return SharedFolder.repository().resolve("cli/target/receivers-corpus");
    }
}
