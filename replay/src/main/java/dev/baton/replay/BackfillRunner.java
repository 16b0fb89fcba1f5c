package dev.baton.replay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.config.BatonConfig;
import dev.baton.config.ConfigLoader;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.engine.model.SessionKey;

/**
 * {@code baton backfill}: every line of the input goes, as it is, to the topology (JSON format on
 * the run's own topics), so the real decoder judges it and a rejected line's dead letter carries the
 * raw line. After the input, one settle control record per session ends every wait. When the
 * application has committed the whole input, the snapshots are written in the input order of their
 * hand-offs, and the dead letters in input order.
 */
public final class BackfillRunner {

  private static final JsonFactory JSON = new JsonFactory();
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final BackfillOptions options;

  public BackfillRunner(BackfillOptions options) {
    this.options = options;
  }

  /** A hand-off of the input: its line and the snapshot it asks for. */
  private record HandoffLine(long line, String snapshotId) {
  }

  /** What the first fields of an input line say (null when absent or unreadable). */
  record Peek(String tenantId, String sessionId, String handoffId) {
    /** The key a producer sends for these fields, valid ids or not (null when one is absent). */
    String key() {
      return tenantId == null || sessionId == null ? null : SessionKey.format(tenantId, sessionId);
    }

    /** The session, when both ids are contract identifiers. */
    Optional<SessionKey> session() {
      return SessionKey.ifValid(tenantId, sessionId);
    }
  }

  public int run() throws IOException {
    long started = System.nanoTime();
    Path input = options.input();
    if (!Jsonl.isStdio(input) && !Files.isRegularFile(input)) {
      throw new AppFailure(ExitCodes.FAILED, "no such input file: " + input);
    }
    Map<String, String> base = baseConfig();
    Logging.quietForEmbeddedRun();
    long totalLines = Jsonl.countRecords(input);
    boolean embedded = options.bootstrapServers() == null;
    String runName = embedded ? "baton-backfill" : "baton-backfill-" + UUID.randomUUID().toString().substring(0, 8);
    say(embedded ? "starting Kafka and the Baton topology in this process…"
        : "replaying on " + options.bootstrapServers() + " (topics " + runName + ".*)…");

    List<HandoffLine> handoffs = new ArrayList<>();
    Set<String> sessions = new LinkedHashSet<>();
    long records = 0;
    try (Replay replay = Replay.open(new Replay.Settings(options.bootstrapServers(), base, "json", null, runName, 4))) {
      Progress progress = options.noProgress() ? null : Progress.onStderr("backfill", totalLines, "records");
      try (Jsonl.Reader reader = Jsonl.reader(input)) {
        byte[] line;
        while ((line = reader.next()) != null) {
          if (Jsonl.isBlank(line)) {
            continue; // not a record (a trailing empty line, say)
          }
          long lineNumber = reader.lineNumber();
          Peek peek = peek(line);
          String key = peek.key();
          replay.send(key == null ? null : key.getBytes(StandardCharsets.UTF_8), line, lineNumber);
          records++;
          Optional<SessionKey> session = peek.session();
          if (session.isPresent()) {
            sessions.add(session.get().toString());
            if (peek.handoffId() != null) {
              handoffs.add(new HandoffLine(lineNumber, session.get().snapshotId(peek.handoffId())));
            }
          }
        }
      } catch (NoSuchFileException e) {
        throw new AppFailure(ExitCodes.FAILED, "no such input file: " + input);
      }
      // end of input: settle every session now (gaps, waiting hand-offs) instead of waiting for the clock
      sessions.forEach(replay::settle);
      long processedTotal = replay.sent();
      final long inputRecords = records;
      boolean done = replay.awaitProcessed(options.timeout(), processed -> {
        if (progress != null) {
          progress.update(Math.min(processed, inputRecords));
        }
      });
      if (progress != null) {
        progress.finish();
      }
      if (!done) {
        throw new AppFailure(ExitCodes.INCOMPLETE, "the topology had not processed the whole input after "
            + options.timeout() + " (" + processedTotal + " records sent); nothing was written. Use --timeout to "
            + "wait longer.");
      }
      return finish(replay, handoffs, records, sessions.size(), started);
    }
  }

  private int finish(Replay replay, List<HandoffLine> handoffs, long records, int sessions, long started)
      throws IOException {
    // snapshots by id, in the order the topology wrote them (a session's records share a partition)
    Map<String, Deque<byte[]>> snapshots = new HashMap<>();
    int snapshotCount = 0;
    for (Replay.Output o : replay.snapshots()) {
      snapshots.computeIfAbsent(snapshotIdOf(o.value()), k -> new ArrayDeque<>()).add(o.value());
      snapshotCount++;
    }
    TreeMap<Long, Replay.Output> dead = new TreeMap<>();
    List<Replay.Output> deadUnplaced = new ArrayList<>();
    for (Replay.Output d : replay.deadLetters()) {
      Replay.Position p = Replay.sourceOf(d);
      long line = p == null ? -1 : replay.tagOf(p.partition(), p.offset());
      if (line < 0) {
        deadUnplaced.add(d);
      } else {
        dead.put(line, d);
      }
    }

    int written = 0;
    int unanswered = 0;
    Set<String> answered = new HashSet<>();
    Path output = options.output();
    // written beside the output and renamed at the end: a failed run never leaves half a file behind
    // (the prefix keeps the name's ending, so a .gz output is compressed from the start)
    Path temporary = Jsonl.isStdio(output) ? output
        : output.toAbsolutePath().resolveSibling(".partial-" + output.getFileName());
    try (Jsonl.Writer writer = Jsonl.writer(temporary)) {
      for (HandoffLine h : handoffs) {
        if (dead.containsKey(h.line())) {
          continue;
        }
        Deque<byte[]> queue = snapshots.get(h.snapshotId());
        if (queue != null && !queue.isEmpty()) {
          writer.write(queue.poll());
          answered.add(h.snapshotId());
          written++;
        } else if (!answered.contains(h.snapshotId())) {
          unanswered++;
          say("no snapshot for the hand-off on line " + h.line() + " (" + h.snapshotId() + ")");
        }
        // else: a repeated handoff_id, counted as a duplicate by the topology
      }
    }
    if (!Jsonl.isStdio(output)) {
      Files.move(temporary, output, StandardCopyOption.REPLACE_EXISTING);
    }
    if (written < snapshotCount) {
      say((snapshotCount - written) + " snapshots matched no hand-off of the input and were not written");
    }
    writeDeadLetters(dead);

    Map<String, Integer> codes = new TreeMap<>();
    dead.values().forEach(d -> codes.merge(d.headers().get(DeadLetterHeaders.CODE), 1, Integer::sum));
    Map<String, Double> counters = replay.counters();
    long seconds = Math.round((System.nanoTime() - started) / 1e9);
    say(String.format(Locale.ROOT, "%,d records of %,d sessions → %,d snapshots (%s), %,d dead letters%s, "
            + "%,.0f duplicate turns, %,.0f duplicate hand-offs; %d s", records, sessions, written,
        Jsonl.isStdio(output) ? "stdout" : output.toString(), dead.size(), codes.isEmpty() ? "" : " " + codes,
        counters.getOrDefault("duplicate-turns-total", 0.0), counters.getOrDefault("duplicate-handoffs-total", 0.0),
        seconds));
    if (!deadUnplaced.isEmpty()) {
      say(deadUnplaced.size() + " dead letters name no input record (e.g. a failure outside a record)");
    }
    if (unanswered > 0 || !deadUnplaced.isEmpty()) {
      say("incomplete: " + unanswered + " hand-offs got neither a snapshot nor a dead letter");
      return ExitCodes.INCOMPLETE;
    }
    return ExitCodes.OK;
  }

  private void writeDeadLetters(TreeMap<Long, Replay.Output> dead) throws IOException {
    if (options.deadLetters() == null) {
      return;
    }
    try (Jsonl.Writer writer = Jsonl.writer(options.deadLetters())) {
      for (var e : dead.entrySet()) {
        Replay.Output d = e.getValue();
        ObjectNode node = MAPPER.createObjectNode();
        node.put("error_code", d.headers().get(DeadLetterHeaders.CODE));
        node.put("error_message", d.headers().get(DeadLetterHeaders.MESSAGE));
        node.put("source_line", e.getKey());
        node.put("record", d.value() == null ? null : new String(d.value(), StandardCharsets.UTF_8));
        writer.write(MAPPER.writeValueAsBytes(node));
      }
    }
  }

  /** Kafka and baton.* settings from --config and BATON_* (the replay itself decides topics and format). */
  private Map<String, String> baseConfig() {
    BatonConfig.Builder builder = ConfigLoader.builder(options.config(), System.getenv());
    // the replay's own choices: JSON lines on private topics (the registry is not needed)
    builder.set(BatonConfig.FORMAT, "json");
    BatonConfig config = ConfigLoader.build(builder);
    Map<String, String> out = new HashMap<>();
    config.asMap().forEach((k, v) -> {
      String origin = config.origin(k);
      if (origin != null && !origin.startsWith("built-in default")) {
        out.put(k, v);
      }
    });
    return out;
  }

  /** tenant_id, session_id and handoff.handoff_id of a line, read without building a tree. */
  static Peek peek(byte[] line) {
    String tenant = null;
    String session = null;
    String handoff = null;
    try (JsonParser p = JSON.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return new Peek(null, null, null);
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (value == JsonToken.VALUE_STRING && name.equals("tenant_id")) {
          tenant = p.getText();
        } else if (value == JsonToken.VALUE_STRING && name.equals("session_id")) {
          session = p.getText();
        } else if (value == JsonToken.START_OBJECT && name.equals("handoff")) {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (v == JsonToken.VALUE_STRING && field.equals("handoff_id")) {
              handoff = p.getText();
            } else {
              p.skipChildren();
            }
          }
        } else {
          p.skipChildren();
        }
      }
    } catch (IOException | RuntimeException unreadable) {
      // the topology's decoder will say what is wrong with it (MALFORMED and the like)
    }
    return new Peek(tenant, session, handoff);
  }

  static String snapshotIdOf(byte[] snapshotJson) {
    try (JsonParser p = JSON.createParser(snapshotJson)) {
      if (p.nextToken() == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          if (name.equals("snapshot_id")) {
            return p.getText();
          }
          p.skipChildren();
        }
      }
    } catch (IOException e) {
      // fall through
    }
    throw new AppFailure(ExitCodes.FAILED, "the topology wrote a snapshot without snapshot_id");
  }

  private static void say(String message) {
    System.err.println("backfill: " + message);
  }
}
