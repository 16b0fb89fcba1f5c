package dev.baton.replay.importer;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.replay.Jsonl;
import dev.baton.replay.importer.ImportReport.Kind;

/**
 * {@code baton import}: recorded ATIF trajectories, OpenAI-style chat logs or OpenTelemetry GenAI traces → SessionEvent JSON lines that
 * {@code baton backfill} and the live topic take as they are. Pure Java and Jackson, no Kafka.
 *
 * <p>Order (docs/import.md): the inputs in the order given, a directory's {@code .json}, {@code .jsonl},
 * {@code .ndjson} files (optionally {@code .gz}) in the order of their relative paths; within a file its documents in
 * order; each trajectory is followed by its embedded subagent trajectories. The events of a session are contiguous.
 * Two passes: the first reads every document once to give it its session id (so that a parent can name the session
 * of a subagent found later), the second converts; only one file's documents are in memory at a time (standard
 * input is read into memory).
 *
 * <pre>{@code
 * ImportReport report = new Importer(ImportSettings.defaults(Format.ATIF, "acme")).run(List.of(dir), output);
 * }</pre>
 */
public final class Importer {

    /** Receives each SessionEvent line (UTF-8 JSON without the new line). */
    public interface EventSink {
        void line(byte[] json) throws IOException;
    }

    private final ImportSettings settings;
    private byte[] stdin;

    public Importer(ImportSettings settings) {
        this.settings = settings;
    }

    /** Converts {@code inputs} and writes the events to {@code output} (JSONL, {@code .gz} compressed, {@code -}: stdout). */
    public ImportReport run(List<Path> inputs, Path output) throws IOException {
        try (Jsonl.Writer writer = Jsonl.writer(output)) {
            return run(inputs, writer::write);
        }
    }

    /** Converts {@code inputs}, handing every event line to {@code sink}. */
    public ImportReport run(List<Path> inputs, EventSink sink) throws IOException {
        ImportReport report = new ImportReport();
        List<Path> files = expand(inputs);
        report.inputs = files.size();
        if (settings.format() == ImportSettings.Format.OTEL_GENAI) {
            // a conversation's spans are spread over many export requests: every span is read before any session
            List<Doc> requests = new ArrayList<>();
            for (Path file : files) {
                for (Doc d : read(file, report, true)) {
                    String why = OtelGenAiConverter.validate(d.tree);
                    if (why != null) report.add(d.source, Kind.REJECTED, why);
                    else requests.add(d);
                }
            }
            OtelGenAiConverter.convert(requests, settings, report, new EventWriter(settings, report, sink::line));
            return report;
        }

        // pass 1: every document's session id, and what subagent references can resolve to
        Index index = new Index();
        List<List<Doc>> identities = new ArrayList<>();
        for (Path file : files) {
            List<Doc> docs = new ArrayList<>();
            for (Doc d : read(file, report, true)) {
                String why = validate(d.tree);
                if (why != null) {
                    report.add(d.source, Kind.REJECTED, why);
                    docs.add(null);
                    continue;
                }
                docs.add(d);
                name(d, index, report);
                d.release();
            }
            identities.add(docs);
        }

        // pass 2: convert and write, document by document
        EventWriter writer = new EventWriter(settings, report, sink::line);
        Doc.Resolver resolver = index::resolve;
        for (int f = 0; f < files.size(); f++) {
            List<Doc> named = identities.get(f);
            List<Doc> docs = read(files.get(f), report, false);
            for (int i = 0; i < docs.size() && i < named.size(); i++) {
                Doc id = named.get(i);
                if (id == null) continue;
                Doc d = docs.get(i);
                attach(d, id);
                List<ImportedSession> sessions = new ArrayList<>();
                if (settings.format() == ImportSettings.Format.ATIF) AtifConverter.convert(d, settings, report, resolver, sessions);
                else ChatConverter.convert(d, settings, report, sessions);
                for (ImportedSession s : sessions) writer.write(s);
            }
            named.clear();
        }
        return report;
    }

    private String validate(JsonNode tree) {
        return settings.format() == ImportSettings.Format.ATIF ? AtifConverter.validate(tree) : ChatConverter.validate(tree);
    }

    // ------------------------------------------------------------------------------------------------ inputs

    /** Files to read: {@code -} (standard input), files as given, and the recorded files under directories. */
    static List<Path> expand(List<Path> inputs) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path p : inputs) {
            if (p.toString().equals("-")) {
                out.add(p);
            } else if (Files.isDirectory(p)) {
                List<Path> found = new ArrayList<>();
                try (Stream<Path> walk = Files.walk(p)) {
                    walk.filter(Files::isRegularFile).filter(f -> recordedFile(f.getFileName().toString())).forEach(found::add);
                }
                found.sort((a, b) -> p.relativize(a).toString().compareTo(p.relativize(b).toString()));
                out.addAll(found);
            } else if (Files.isRegularFile(p)) {
                out.add(p);
            } else {
                throw new NoSuchFileException(p.toString(), null, "no such file or directory");
            }
        }
        return out;
    }

    static boolean recordedFile(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.endsWith(".gz")) n = n.substring(0, n.length() - 3);
        return n.endsWith(".json") || n.endsWith(".jsonl") || n.endsWith(".ndjson");
    }

    private static boolean lineFile(Path file) {
        String n = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (n.endsWith(".gz")) n = n.substring(0, n.length() - 3);
        return n.endsWith(".jsonl") || n.endsWith(".ndjson");
    }

    /** The file name without its .gz and .json / .jsonl / .ndjson endings; "stdin" for {@code -}. */
    static String stem(Path file) {
        if (file.toString().equals("-")) return "stdin";
        String n = file.getFileName().toString();
        String lower = n.toLowerCase(Locale.ROOT);
        if (lower.endsWith(".gz")) {
            n = n.substring(0, n.length() - 3);
            lower = lower.substring(0, lower.length() - 3);
        }
        for (String ext : new String[] {".jsonl", ".ndjson", ".json"}) {
            if (lower.endsWith(ext)) return n.substring(0, n.length() - ext.length());
        }
        return n;
    }

    private InputStream open(Path file) throws IOException {
        InputStream in;
        if (file.toString().equals("-")) {
            if (stdin == null) stdin = System.in.readAllBytes();
            in = new ByteArrayInputStream(stdin);
        } else {
            in = Files.newInputStream(file);
        }
        in = new BufferedInputStream(in, 1 << 16);
        in.mark(2);
        int b0 = in.read();
        int b1 = in.read();
        in.reset();
        if (b0 == 0x1f && b1 == 0x8b) in = new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16);
        return in;
    }

    /**
     * The documents of a file, each with its source ("path", or "path:line" when the file holds several). A
     * {@code .jsonl} / {@code .ndjson} file is read line by line (a bad line is reported and skipped); any other
     * file is read as a sequence of JSON values (a bad value ends the file, reported). A top-level array is a list
     * of documents, except that a chat file of messages (objects with a role) is one conversation.
     */
    private List<Doc> read(Path file, ImportReport report, boolean reportErrors) throws IOException {
        String label = file.toString();
        List<long[]> lines = new ArrayList<>();
        List<JsonNode> values = new ArrayList<>();
        RawJson.Repairs repairs = new RawJson.Repairs();
        try (InputStream in = open(file)) {
            if (lineFile(file)) {
                LineReader reader = new LineReader(in);
                byte[] line;
                while ((line = reader.next()) != null) {
                    if (Jsonl.isBlank(line)) continue;
                    try {
                        values.add(RawJson.readOne(line, repairs));
                        lines.add(new long[] {reader.lineNumber()});
                    } catch (IOException e) {
                        if (reportErrors) report.add(label + ":" + reader.lineNumber(), Kind.REJECTED, "not JSON: " + reason(e));
                    }
                }
            } else {
                try (JsonParser p = RawJson.parser(in)) {
                    while (true) {
                        long line = -1;
                        try {
                            if (p.nextToken() == null) break;
                            line = p.currentTokenLocation().getLineNr();
                            values.add(RawJson.readValue(p, repairs));
                            lines.add(new long[] {line});
                        } catch (IOException e) {
                            long at = e instanceof JsonProcessingException j && j.getLocation() != null
                                    ? j.getLocation().getLineNr() : line;
                            if (reportErrors) {
                                report.add(label + (at > 0 ? ":" + at : ""), Kind.REJECTED, "not JSON: " + reason(e)
                                        + (values.isEmpty() ? "" : " (the " + values.size() + " document(s) before it are imported)"));
                            }
                            break;
                        }
                    }
                }
            }
        } catch (java.util.zip.ZipException e) {
            if (reportErrors) report.add(label, Kind.REJECTED, "not a readable gzip file: " + e.getMessage());
            return List.of();
        }
        if (reportErrors && repairs.loneSurrogates > 0) {
            report.add(label, Kind.MAPPED, repairs.loneSurrogates + " lone UTF-16 surrogate(s) replaced by U+FFFD");
        }
        // documents: arrays expanded, chat messages gathered into one conversation
        List<JsonNode> docs = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        boolean chat = settings.format() == ImportSettings.Format.OPENAI_CHAT;
        boolean allMessages = chat && !values.isEmpty() && values.stream().allMatch(Importer::isMessage);
        if (allMessages) {
            ArrayNode messages = JsonNodeFactory.instance.arrayNode();
            values.forEach(messages::add);
            ObjectNode conversation = JsonNodeFactory.instance.objectNode();
            conversation.set("messages", messages);
            docs.add(conversation);
            sources.add(label);
        } else {
            boolean several = values.size() > 1;
            for (int i = 0; i < values.size(); i++) {
                JsonNode v = values.get(i);
                String src = several ? label + ":" + lines.get(i)[0] : label;
                if (v.isArray()) {
                    if (chat && v.size() > 0 && allMessages(v)) {
                        ObjectNode conversation = JsonNodeFactory.instance.objectNode();
                        conversation.set("messages", v);
                        docs.add(conversation);
                        sources.add(src);
                    } else {
                        for (int k = 0; k < v.size(); k++) {
                            docs.add(v.get(k));
                            sources.add(src + "[" + k + "]");
                        }
                    }
                } else {
                    docs.add(v);
                    sources.add(src);
                }
            }
        }
        if (reportErrors) report.documents += docs.size();
        List<Doc> out = new ArrayList<>(docs.size());
        for (int i = 0; i < docs.size(); i++) {
            out.add(new Doc(sources.get(i), file.toString().equals("-") ? null : file, docs.get(i), null));
        }
        return out;
    }

    /** Lines as bytes (so that bytes which are not UTF-8 reach the JSON parser, which reports them). */
    private static final class LineReader {
        private final InputStream in;
        private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream(4096);
        private long number;
        private boolean eof;

        LineReader(InputStream in) {
            this.in = in;
        }

        byte[] next() throws IOException {
            if (eof) return null;
            line.reset();
            int b;
            while ((b = in.read()) != -1 && b != '\n') line.write(b);
            if (b == -1) {
                eof = true;
                if (line.size() == 0) return null;
            }
            number++;
            byte[] bytes = line.toByteArray();
            return bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? java.util.Arrays.copyOf(bytes, bytes.length - 1) : bytes;
        }

        long lineNumber() {
            return number;
        }
    }

    private static boolean isMessage(JsonNode v) {
        return v.isObject() && v.has("role") && !v.has("messages");
    }

    private static boolean allMessages(JsonNode array) {
        for (JsonNode v : array) if (!isMessage(v)) return false;
        return true;
    }

    private static String reason(IOException e) {
        String m = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        if (m == null) m = e.getClass().getSimpleName();
        return m.length() > 200 ? m.substring(0, 200) + "…" : m;
    }

    // ------------------------------------------------------------------------------------------------ sessions

    /** Pass 1: the Baton session id of a document (and of its embedded subagent trajectories). */
    private void name(Doc d, Index index, ImportReport report) {
        JsonNode t = d.tree;
        boolean atif = settings.format() == ImportSettings.Format.ATIF;
        String rawSession = atif ? RawJson.stringOrNumber(t, "session_id") : firstOf(t, "session_id", "id", "conversation_id");
        String rawTrajectory = atif ? RawJson.stringOrNumber(t, "trajectory_id") : null;
        String raw;
        if (d.parent != null) {
            String own = rawTrajectory != null ? rawTrajectory : rawSession != null ? rawSession
                    : "subagent-" + d.parent.embedded.indexOf(d);
            raw = d.parent.sessionId + ":" + own;
        } else {
            String byFile = fileBased(d);
            raw = switch (settings.sessionIdFrom()) {
                case FILE -> byFile;
                case SESSION_ID -> rawSession != null ? rawSession : byFile;
                case TRAJECTORY_ID -> rawTrajectory != null ? rawTrajectory : rawSession != null ? rawSession : byFile;
                case AUTO -> rawSession != null ? rawSession : rawTrajectory != null ? rawTrajectory : byFile;
            };
        }
        String id = Names.id(raw);
        if (!id.equals(raw)) report.mappedOnce(d.source, Kind.ID_MAPPED, "session id", raw, id);
        if (index.taken.contains(id)) {
            String base = id;
            int n = 2;
            while (index.taken.contains(id = Names.withSuffix(base, ":" + n))) n++;
            report.add(d.source, Kind.SESSION_RENAMED, "session id " + Texts.quote(base)
                    + " is already used by an earlier input: " + Texts.quote(id));
        }
        index.taken.add(id);
        d.sessionId = id;
        d.rawTrajectoryId = rawTrajectory;
        if (rawTrajectory != null) index.byTrajectory.putIfAbsent(rawTrajectory, id);
        if (rawSession != null) index.bySession.putIfAbsent(rawSession, id);
        if (d.file != null && d.parent == null && d.source.equals(d.file.toString())) {
            index.byPath.putIfAbsent(d.file.toAbsolutePath().normalize(), id);
        }
        if (atif && t.path("subagent_trajectories").isArray()) {
            for (JsonNode sub : t.get("subagent_trajectories")) {
                d.embedded.add(new Doc(d.source + " subagent " + d.embedded.size(), d.file, sub, d));
            }
            for (Doc sub : d.embedded) name(sub, index, report);
        }
    }

    private static String firstOf(JsonNode t, String... fields) {
        for (String f : fields) {
            String v = RawJson.stringOrNumber(t, f);
            if (v != null && !v.isEmpty()) return v;
        }
        return null;
    }

    private static String fileBased(Doc d) {
        String stem = d.file == null ? "stdin" : stem(d.file);
        String label = d.file == null ? "-" : d.file.toString();
        String rest = d.source.startsWith(label) ? d.source.substring(label.length()) : "";
        return rest.isEmpty() ? stem : stem + rest.replace('[', ':').replace("]", "");
    }

    /** Pass 2: the ids pass 1 gave a document, onto the document read again. */
    private static void attach(Doc d, Doc named) {
        d.sessionId = named.sessionId;
        d.rawTrajectoryId = named.rawTrajectoryId;
        d.embedded.clear();
        for (Doc sub : named.embedded) {
            int k = d.embedded.size();
            Doc again = new Doc(sub.source, d.file, d.tree.get("subagent_trajectories").get(k), d);
            attach(again, sub);
            d.embedded.add(again);
        }
    }

    /** What pass 1 learned: session ids taken, and how subagent references resolve. */
    private static final class Index {
        final Set<String> taken = new HashSet<>();
        final Map<String, String> byTrajectory = new HashMap<>();
        final Map<String, String> bySession = new HashMap<>();
        final Map<Path, String> byPath = new HashMap<>();

        /**
         * A reference resolves, in this order, by {@code trajectory_id} (an embedded trajectory of the same root
         * first), by {@code trajectory_path} (relative to the referring file) and by {@code session_id} (another
         * document's). Unresolved: the id it names, mapped like any id, marked not imported.
         */
        Doc.Resolved resolve(JsonNode ref, Doc from) {
            if (ref == null || !ref.isObject()) return new Doc.Resolved("unknown", false);
            String trajectory = RawJson.stringOrNumber(ref, "trajectory_id");
            String path = RawJson.string(ref, "trajectory_path");
            String session = RawJson.stringOrNumber(ref, "session_id");
            if (trajectory != null) {
                Doc root = from;
                while (root.parent != null) root = root.parent;
                String embedded = findEmbedded(root, trajectory);
                if (embedded != null) return new Doc.Resolved(embedded, true);
                String id = byTrajectory.get(trajectory);
                if (id != null && !id.equals(from.sessionId)) return new Doc.Resolved(id, true);
            }
            if (path != null && from.file != null && !path.contains("://")) {
                try {
                    Path p = from.file.toAbsolutePath().getParent().resolve(path).normalize();
                    String id = byPath.get(p);
                    if (id != null) return new Doc.Resolved(id, true);
                } catch (java.nio.file.InvalidPathException ignored) {
                    // not a local path
                }
            }
            if (session != null) {
                String id = bySession.get(session);
                if (id != null && !id.equals(from.sessionId)) return new Doc.Resolved(id, true);
            }
            String named = session != null ? session : trajectory != null ? trajectory : path != null ? path : "unknown";
            return new Doc.Resolved(Names.id(named), false);
        }

        private static String findEmbedded(Doc d, String trajectory) {
            for (Doc sub : d.embedded) {
                if (trajectory.equals(sub.rawTrajectoryId)) return sub.sessionId;
                String deeper = findEmbedded(sub, trajectory);
                if (deeper != null) return deeper;
            }
            return null;
        }
    }
}
