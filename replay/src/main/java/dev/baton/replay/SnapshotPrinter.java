package dev.baton.replay;

import java.io.PrintStream;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

import dev.baton.engine.model.ToolCall;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;

/**
 * A readable view of a {@link Snapshot} for people ({@code baton demo}): who hands over to whom,
 * the framing, the brick, the transcript with roles, names and tool calls, and every marker.
 * Very long texts are shortened for the screen only; {@code --jsonl} prints the records whole. Also what
 * {@code baton tail} prints.
 */
public final class SnapshotPrinter {

    /** Characters of one text shown before the view shortens it. */
    static final int SHOWN_CHARS = 900;
    private static final String RULE = "─".repeat(78);

    private final PrintStream out;

    public SnapshotPrinter(PrintStream out) {
        this.out = out;
    }

    public void print(Snapshot s) {
        out.println(RULE);
        out.printf(Locale.ROOT, "%s / %s · hand-off %s%n", s.tenantId(), s.sessionId(), s.handoffId());
        out.printf(Locale.ROOT, "%s → %s (%s) · as of seq %d · %d %s · %s%n",
                s.fromAgent() == null ? "(no previous owner)" : s.fromAgent(), s.toAgent(), s.target(), s.asOfSeq(),
                s.turnCount(), s.turnCount() == 1 ? "turn" : "turns", Instant.ofEpochMilli(s.occurredAtMillis()));
        out.println(RULE);

        out.println("framing: " + s.framing().kind());
        block(s.framing().systemPrompt());
        out.printf(Locale.ROOT, "brick (%,d chars):%n", s.brick().length());
        block(s.brick());

        if (s.messages().isEmpty()) {
            out.println("transcript: none (" + s.target() + " resumes its own conversation; the brick is the context)");
        } else {
            out.printf(Locale.ROOT, "transcript (%d messages, %,d chars, ~%,d tokens):%n", s.messages().size(),
                    s.stats().messageChars(), s.stats().estimatedTokens());
            for (Message m : s.messages()) {
                message(m);
            }
        }

        if (!s.truncations().isEmpty()) {
            out.println("markers:");
            for (Truncation t : s.truncations()) {
                String range = t.seqFrom() == null ? "" : t.seqFrom().equals(t.seqTo())
                        ? " seq " + t.seqFrom() : " seq " + t.seqFrom() + "–" + t.seqTo();
                out.printf(Locale.ROOT, "  %s%s (count %,d)%n", t.kind(), range, t.count());
                out.println("    " + shorten(t.marker(), 240).replace("\n", "\n    "));
            }
        }
        var r = s.retention();
        out.printf(Locale.ROOT, "retention: expanded %s, inlined %s, manifest %s%s, trail bytes %,d%n",
                r.expandedSeqs(), r.inlinedSeqs(), r.manifestSeqs(),
                r.manifestUnlisted() > 0 ? " (+" + r.manifestUnlisted() + " unlisted)" : "", r.trailBytes());
        out.printf(Locale.ROOT, "parity: %d/%d items of %s's own rendering covered%n", s.parity().coveredItems(),
                s.parity().referenceItems(), s.parity().referenceAgent());
        out.println();
    }

    private void message(Message m) {
        StringBuilder label = new StringBuilder("[").append(m.role());
        if (m.name() != null) {
            label.append(" · ").append(m.name());
        }
        if (m.toolCallId() != null) {
            label.append(" · answers ").append(m.toolCallId());
        }
        label.append(']');
        out.println("  " + label);
        if (!m.content().isEmpty()) {
            indent(shorten(m.content(), SHOWN_CHARS), "    ");
        }
        for (ToolCall call : m.toolCalls()) {
            out.println("    → " + call.tool() + " " + shorten(call.arguments(), 300) + "   (" + call.callId() + ")");
        }
    }

    private void block(String text) {
        indent(shorten(text, 3_200), "  │ ");
    }

    private void indent(String text, String prefix) {
        for (String line : text.split("\r\n|\r|\n", -1)) {
            out.println(prefix + line);
        }
    }

    /** Head and tail of a long text around a note of what the view left out. */
    static String shorten(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        int head = max * 2 / 3;
        int tail = max - head;
        return text.substring(0, head) + "\n… [" + String.format(Locale.ROOT, "%,d", text.length() - max)
                + " more characters not shown here; --jsonl prints everything] …\n" + text.substring(text.length() - tail);
    }

    /** One line per dead letter. */
    void deadLetters(List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        out.println(RULE);
        out.println("dead letters (rejected records; processing went on):");
        lines.forEach(l -> out.println("  " + l));
        out.println();
    }
}
