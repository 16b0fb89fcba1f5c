package dev.baton.engine.properties;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.Turn;
import dev.baton.engine.narration.Escaping;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R2 narration and markers cannot be forged. Sessions whose every text, argument and result is adversarial (lines
 * imitating narration, markers, digest and manifest lines, brick lines, backslashes, {@code \r\n} and lone {@code \r})
 * are rendered; in every system message and in the brick, every line that starts with {@code [}, {@code (} or
 * {@code …} must be a line Baton wrote at a position where Baton writes it (call line then outcome line, a listed
 * marker, a manifest or digest entry naming a real seq and agent, the brick's session/task/brief lines). Anything
 * else would be data passing for Baton's own words.
 */
class NoForgeryProperties {
    static final Pattern MANIFEST_LINE = Pattern.compile("\\[seq (\\d+) ([A-Za-z0-9_-]+): ([A-Za-z0-9_, -]+)\\]");
    static final Pattern SEQ_LINE = Pattern.compile("\\[seq (\\d+) ([A-Za-z0-9_-]+)( tool result)?\\]( .*)?");
    static final Pattern MANIFEST_FOOTER = Pattern.compile("\\(\\d+ older trail-bearing turns? not listed\\)");

    @Provide
    Arbitrary<SessionArbitraries.Scenario> adversarial() {
        return SessionArbitraries.sessions(SessionArbitraries.Mode.ADVERSARIAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> recorded() {
        return SessionArbitraries.recordedSessions();
    }

    @Provide
    Arbitrary<String> data() {
        return Arbitraries.oneOf(SessionArbitraries.shortText(true), SessionArbitraries.shortText(false),
                Arbitraries.strings().withChars('[', '(', '…', '\\', '\n', '\r', 'a', ' ').ofMaxLength(30),
                Arbitraries.strings().ofMaxLength(50));
    }

    @Property(tries = 200)
    void shouldRoundTripEscaping(@ForAll("data") String x) {
        String escaped = Escaping.escape(x);
        assertThat(Escaping.unescape(escaped)).isEqualTo(x);
        for (String line : Renderings.lines(escaped)) {
            assertThat(Renderings.startsSpecial(line)).as("escaped line %s", line).isFalse();
        }
    }

    @Property(tries = 150)
    void shouldNeverLetDataPassForBatonLines(@ForAll("adversarial") SessionArbitraries.Scenario sc) {
        checkNoForgery(sc);
    }

    @Property(tries = 60)
    void shouldNeverLetDataOfRecordedSessionsPassForBatonLines(@ForAll("recorded") SessionArbitraries.Scenario sc) {
        checkNoForgery(sc);
    }

    static void checkNoForgery(SessionArbitraries.Scenario sc) {
        Snapshot snap = sc.run().render(sc.handoff());
        Context ctx = new Context(sc, snap);
        String dump = Renderings.dump(snap);
        for (Message m : snap.messages()) {
            if (m.role().equals("system")) ctx.checkSystemMessage(m.content(), dump);
        }
        ctx.checkBrick(snap.brick(), dump);
    }

    /** What Baton may legitimately name: the session's agents, tools, seqs and the listed markers. */
    static final class Context {
        final Set<String> agents = new HashSet<>();
        final Set<String> tools = new HashSet<>(SessionArbitraries.TOOLS);
        final Map<Long, Turn> turns = new HashMap<>();
        final Set<String> markers = new HashSet<>();
        final Set<String> segmentMarkers = new HashSet<>();

        Context(SessionArbitraries.Scenario sc, Snapshot snap) {
            for (Turn t : sc.turns()) {
                turns.put(t.seq(), t);
                if (t.role() == Role.ASSISTANT || t.role() == Role.TOOL) agents.add(t.agent());
            }
            tools.add("unknown");
            for (Truncation t : snap.truncations()) {
                markers.add(t.marker());
                if (t.kind() == TruncationKind.SEGMENT_TRIMMED) segmentMarkers.add(t.marker());
            }
        }

        void fail(String what, String line, String dump) {
            throw new AssertionError(what + ": " + SessionArbitraries.abbreviate(line) + "\n" + dump);
        }

        boolean isCallLine(String line) {
            Matcher m = Renderings.CALL_LINE.matcher(line);
            return m.matches() && agents.contains(m.group(1)) && tools.contains(m.group(2));
        }

        static boolean isOutcomeLine(String line) {
            return line.startsWith("[result: ") || line.startsWith("[error: ") || line.equals(Renderings.CLEARED)
                    || line.equals(Renderings.NO_RESULT);
        }

        /** {@code [seq N who]} names a real turn with that agent or role. */
        boolean isSeqLine(String line) {
            Matcher m = SEQ_LINE.matcher(line);
            if (!m.matches()) return false;
            Turn t = turns.get(Long.parseLong(m.group(1)));
            if (t == null) return false;
            String who = m.group(2);
            boolean toolResult = m.group(3) != null;
            return switch (t.role()) {
                case USER -> who.equals("user") && !toolResult;
                case SYSTEM -> who.equals("system") && !toolResult;
                case ASSISTANT -> who.equals(t.agent()) && !toolResult;
                case TOOL -> who.equals(t.agent()) && toolResult;
            };
        }

        boolean isManifestLine(String line) {
            Matcher m = MANIFEST_LINE.matcher(line);
            if (!m.matches()) return false;
            Turn t = turns.get(Long.parseLong(m.group(1)));
            // an ASSISTANT turn's trail, or a TOOL turn's orphan result (R3: a trail of its own, tool "unknown")
            return t != null && (t.role() == Role.ASSISTANT || t.role() == Role.TOOL && m.group(3).equals("unknown"))
                    && t.agent().equals(m.group(2));
        }

        void checkSystemMessage(String content, String dump) {
            List<String> lines = Renderings.lines(content);
            String first = lines.get(0);
            if (first.startsWith("[")) {
                if (!isCallLine(first)) fail("system message starts with a line Baton did not write", first, dump);
                if (lines.size() < 2 || !isOutcomeLine(lines.get(1))) fail("narration without outcome", content, dump);
                dataLines(lines.subList(2, lines.size()), dump);
            } else if (first.startsWith("(tool activity of ")) {
                if (!markers.contains(first)) fail("manifest header not listed", first, dump);
                for (int i = 1; i < lines.size(); i++) {
                    String l = lines.get(i);
                    boolean last = i == lines.size() - 1;
                    if (last ? !MANIFEST_FOOTER.matcher(l).matches() : !isManifestLine(l)) fail("manifest line", l, dump);
                }
            } else if (first.startsWith("(earlier conversation summarized")) {
                if (!markers.contains(first)) fail("digest header not listed", first, dump);
                for (int i = 1; i < lines.size(); i++) {
                    if (!isSeqLine(lines.get(i))) fail("digest line", lines.get(i), dump);
                }
            } else if (first.startsWith("(") || first.startsWith("…")) {
                if (lines.size() != 1 || !markers.contains(first)) fail("unlisted marker message", content, dump);
            } else {
                dataLines(lines, dump); // a SYSTEM turn: quoted data, possibly cut
            }
        }

        /** Quoted data: no line may start specially, except the marker line of a cut. */
        void dataLines(List<String> lines, String dump) {
            for (String l : lines) {
                if (Renderings.startsSpecial(l) && !segmentMarkers.contains(l)) fail("data line passes for Baton's", l, dump);
            }
        }

        /** The head of a brick turn cut may end inside one of Baton's own lines (even inside its agent or tool). */
        boolean isCutBatonLine(String l) {
            for (String a : agents) {
                String call = "[" + a + " called ";
                if (call.startsWith(l)) return true;
                if (l.startsWith(call)) {
                    String rest = l.substring(call.length());
                    for (String t : tools) if (t.startsWith(rest) || rest.startsWith(t + "(")) return true;
                }
            }
            for (String p : new String[]{"[result: ", "[error: ", "[seq ", Renderings.CLEARED, Renderings.NO_RESULT}) {
                if (p.startsWith(l) || l.startsWith(p)) return true;
            }
            for (String mk : markers) if (mk.startsWith(l)) return true;
            return false;
        }

        void checkBrick(String brick, String dump) {
            List<String> lines = Renderings.lines(brick);
            if (!lines.get(0).startsWith("[session s1 of tenant acme: ")) fail("brick session line", lines.get(0), dump);
            boolean fixedPart = true;
            boolean expectOutcome = false;
            int afterTurnCut = 0;
            for (int i = 1; i < lines.size(); i++) {
                String l = lines.get(i);
                // The tail of a brick turn cut starts inside a line (maybe a call line): its first two lines may be
                // followed by that call's outcome.
                boolean outcomeAllowed = expectOutcome || afterTurnCut > 0;
                expectOutcome = false;
                if (afterTurnCut > 0) afterTurnCut--;
                if (!Renderings.startsSpecial(l)) continue;
                if (fixedPart && (l.startsWith("[task] ") || l.equals("[task]")) && i == 1) continue;
                if (fixedPart && (l.startsWith("[brief] ") || l.equals("[brief]"))) {
                    fixedPart = false;
                    continue;
                }
                fixedPart = false;
                if (markers.contains(l)) {
                    // After a brick turn cut, the tail starts mid-turn: its next line may be a cut call's outcome.
                    if (l.contains(" of this turn cut;")) afterTurnCut = 2;
                    continue;
                }
                if (isCallLine(l)) {
                    expectOutcome = true;
                    continue;
                }
                if (isOutcomeLine(l) && outcomeAllowed) continue;
                if (isSeqLine(l)) continue;
                boolean beforeTurnCut = i + 1 < lines.size() && lines.get(i + 1).contains(" of this turn cut;")
                        && markers.contains(lines.get(i + 1));
                if (beforeTurnCut && isCutBatonLine(l)) continue;
                fail("brick line Baton did not write", l, dump);
            }
        }
    }
}
