package dev.baton.receivers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.replay.importer.ImportSettings;
import dev.baton.replay.importer.Importer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Every recorded run of {@code <shared>/recorded/} (read in place) as Baton sessions: one session per run, in the
 * order of the files' relative paths. Each file's format is known from where it lives (recorded/README.md); a file
 * that gives no session is a failure of the converter, which {@link #files()} lets the test see.
 */
final class RecordedCorpus {
    static final String TENANT = "recorded";

    /** What one recorded file gave. */
    record FileCount(String file, String format, int sessions, int turns, int calls) {
    }

    private final List<RecordedSession> sessions = new ArrayList<>();
    private final List<FileCount> files = new ArrayList<>();

    private RecordedCorpus() {
    }

    static RecordedCorpus load(Path shared) throws IOException {
        Path root = shared.resolve("recorded");
        RecordedCorpus corpus = new RecordedCorpus();
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(root)) {
            paths = walk.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().equals("SOURCES.json"))
                    .filter(p -> !p.getFileName().toString().equals("README.md"))
                    .sorted((a, b) -> root.relativize(a).toString().compareTo(root.relativize(b).toString()))
                    .toList();
        }
        for (Path p : paths) corpus.convert(root, p);
        return corpus;
    }

    /** Every file that the {@code SOURCES.json} of {@code recorded/multi} and {@code recorded/single} lists, relative to {@code recorded/}. */
    static List<String> listedFiles(Path shared) throws IOException {
        List<String> out = new ArrayList<>();
        for (String folder : List.of("multi", "single")) {
            JsonNode sources = SessionBuilder.JSON.readTree(shared.resolve("recorded").resolve(folder)
                    .resolve("SOURCES.json").toFile());
            sources.path("files").forEach(f -> out.add(folder + "/" + f.path("file").asText()));
        }
        return out;
    }

    List<RecordedSession> sessions() {
        return sessions;
    }

    List<FileCount> files() {
        return files;
    }

    private void convert(Path root, Path file) throws IOException {
        String rel = root.relativize(file).toString().replace('\\', '/');
        String name = file.getFileName().toString();
        String stem = name.replaceFirst("\\.(traj|json|jsonl|ipynb)$", "");
        String base = file.getParent().getFileName() + ":" + stem;
        List<RecordedSession> got = new ArrayList<>();
        String format;
        if (name.endsWith(".traj")) {
            format = "swe-agent-traj";
            got.add(SweAgentTrajectory.convert(read(file), builder(base, rel)));
        } else if (name.endsWith(".ipynb")) {
            format = "autogen-notebook";
            notebook(read(file), base, rel, got);
        } else if (name.equals("output.jsonl")) {
            format = "openhands-output";
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).isBlank()) continue;
                JsonNode run = SessionBuilder.JSON.readTree(lines.get(i));
                String agent = run.path("metadata").path("agent_class").asText("agent");
                String id = run.path("instance_id").asText(base + ":" + (i + 1));
                SessionBuilder b = builder(id, rel + ":" + (i + 1));
                JsonNode history = run.path("history");
                got.add(OpenHandsHistory.isEventStream(history) ? OpenHandsHistory.convertEvents(history, agent, b)
                        : OpenHandsHistory.convertFlat(history, agent, b));
            }
        } else if (rel.contains("All-Hands-AI__OpenHands/") || (rel.contains("Xelron/") && read(file).isArray())) {
            format = "openhands-events";
            got.add(OpenHandsHistory.convertEvents(read(file), "agent", builder(base, rel)));
        } else if (rel.contains("Who&When/")) {
            format = "who-and-when";
            got.add(WhoAndWhenLog.convert(read(file), builder(base, rel)));
        } else if (rel.contains("Xelron/") && read(file).has("messages")) {
            format = "openai-chat";
            got.addAll(imported(file, rel, ImportSettings.Format.OPENAI_CHAT)); // mini-swe-agent's own record
        } else if (rel.contains("Xelron/")) {
            format = "atif";
            got.addAll(imported(file, rel, ImportSettings.Format.ATIF));
        } else {
            throw new IllegalStateException("no converter for " + rel);
        }
        sessions.addAll(got);
        files.add(new FileCount(rel, format, got.size(), got.stream().mapToInt(s -> s.turns().size()).sum(),
                got.stream().mapToInt(RecordedSession::calls).sum()));
    }

    /** One session per code cell whose printed output is an agent conversation. */
    private static void notebook(JsonNode nb, String base, String rel, List<RecordedSession> out) {
        JsonNode cells = nb.path("cells");
        for (int c = 0; c < cells.size(); c++) {
            StringBuilder stdout = new StringBuilder();
            for (JsonNode o : cells.get(c).path("outputs")) {
                if ("stream".equals(o.path("output_type").asText()) && "stdout".equals(o.path("name").asText())) {
                    stdout.append(text(o.get("text")));
                }
            }
            String s = stdout.toString();
            SessionBuilder b = builder(base + ":cell" + c, rel + "#cell" + c);
            if (AutogenConsole.isAgentChat(s)) out.add(AutogenConsole.convertAgentChat(s, b));
            else if (AutogenConsole.isAg2(s)) out.add(AutogenConsole.convertAg2(s, b));
        }
    }

    /** Harbor ATIF (or a chat log) through Baton's own importer (docs/import.md), session ids from the file name. */
    private static List<RecordedSession> imported(Path file, String rel, ImportSettings.Format format)
            throws IOException {
        ImportSettings settings = ImportSettings.defaults(format, TENANT)
                .withSessionIdFrom(ImportSettings.SessionIdFrom.FILE);
        Map<String, List<ObjectNode>> bySession = new LinkedHashMap<>();
        Map<String, List<String>> linesBySession = new LinkedHashMap<>();
        new Importer(settings).run(List.of(file), bytes -> {
            String line = new String(bytes, StandardCharsets.UTF_8);
            ObjectNode e = (ObjectNode) SessionBuilder.JSON.readTree(line);
            String id = e.get("session_id").asText();
            bySession.computeIfAbsent(id, k -> new ArrayList<>()).add(e);
            linesBySession.computeIfAbsent(id, k -> new ArrayList<>()).add(line);
        });
        List<RecordedSession> out = new ArrayList<>();
        bySession.forEach((id, events) -> out.add(new RecordedSession(TENANT, id, rel, List.copyOf(events),
                List.copyOf(linesBySession.get(id)))));
        return out;
    }

    private static SessionBuilder builder(String rawId, String source) {
        return new SessionBuilder(TENANT, rawId, source);
    }

    private static JsonNode read(Path file) throws IOException {
        return SessionBuilder.JSON.readTree(file.toFile());
    }

    private static String text(JsonNode t) {
        if (t == null) return "";
        if (t.isTextual()) return t.asText();
        StringBuilder sb = new StringBuilder();
        t.forEach(line -> sb.append(line.asText()));
        return sb.toString();
    }
}
