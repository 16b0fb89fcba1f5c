package dev.baton.engine.properties;

import dev.baton.engine.layout.MessageWriter;
import dev.baton.engine.layout.Segment;
import dev.baton.engine.layout.SegmentBuilder;
import dev.baton.engine.model.Target;
import dev.baton.engine.narration.Datum;
import dev.baton.engine.narration.Escaping;
import dev.baton.engine.narration.Narration;
import dev.baton.engine.narration.StepView;
import dev.baton.engine.parity.ParityCheck;
import dev.baton.engine.retention.RetentionPlan;
import dev.baton.engine.retention.RetentionPlanner;
import dev.baton.engine.snapshot.Parity;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.trim.HeadTailTrim;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Render computes some things without building the text they describe: R9's parity from the segments
 * ({@link ParityCheck#parity}) instead of writing the primary's rendering and re-parsing both; a step's size and an
 * escaped datum's length by counting. Each is checked here against the former computation, which builds and
 * re-reads the text: on generated sessions (normal and adversarial) and on generated steps whose agent, tool,
 * arguments and results are made to break the narration's read-back (" called " in names, parentheses, line breaks,
 * markers that look escaped).
 */
class RenderShortcutsProperties {

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> adversarial() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.ADVERSARIAL);
    }

    @Property(tries = 150)
    void shouldCountParityAsTheReparseDid(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        checkSession(sc);
    }

    @Property(tries = 80)
    void shouldCountParityAsTheReparseDidWithAdversarialData(@ForAll("adversarial") SessionArbitraries.Scenario sc) {
        checkSession(sc);
    }

    @Property(tries = 400)
    void shouldCountParityAsTheReparseDidForOddSteps(@ForAll("oddSegments") List<Segment> segments,
                                                     @ForAll("names") String receiver,
                                                     @ForAll("names") String primary) {
        checkSegments(segments, receiver, primary);
        checkSegments(segments, primary, primary);
        for (Segment s : segments) assertThat(s.size()).as("size of %s", s).isEqualTo(oldSize(s));
        for (Segment s : segments) {
            if (s.kind() != Segment.Kind.STEP) continue;
            // narrate writes into one presized builder: it must equal its call and outcome lines joined
            String byParts = Narration.callLine(s.step()) + "\n" + Narration.outcomeLine(s.step());
            assertThat(Narration.narrate(s.step())).isEqualTo(byParts);
            assertThat(s.step().result().escapedTo(new StringBuilder("x")).toString())
                    .isEqualTo("x" + s.step().result().escaped());
        }
    }

    @Property(tries = 1000)
    void shouldEscapeAndMeasureAsCharByChar(@ForAll("texts") String text) {
        assertThat(Escaping.escape(text)).isEqualTo(OldEscaping.escape(text));
        assertThat(Escaping.escapeTo(text, new StringBuilder("[")).toString()).isEqualTo("[" + OldEscaping.escape(text));
        assertThat(Escaping.escapedLength(text)).isEqualTo(OldEscaping.escape(text).length());
        assertThat(Escaping.unescape(text)).isEqualTo(OldEscaping.unescape(text));
        assertThat(Escaping.unescape(Escaping.escape(text))).isEqualTo(text);
    }

    static void checkSession(SessionArbitraries.Scenario sc) {
        SessionArbitraries.Run run = sc.run();
        SessionState state = run.state();
        RetentionPlan plan = RetentionPlanner.plan(state, sc.policy());
        SegmentBuilder.Layout layout = SegmentBuilder.build(state, plan, null);
        List<List<Segment>> transcripts = new ArrayList<>();
        transcripts.add(HeadTailTrim.trim(layout, null, sc.policy().transcriptBudgetChars(), sc.policy(), state).segments());
        transcripts.add(HeadTailTrim.trim(layout, null, 2_000, sc.policy(), state).segments());
        List<Segment> all = new ArrayList<>(layout.head());
        all.addAll(layout.body());
        transcripts.add(all);
        Set<String> agents = new LinkedHashSet<>(sc.agents());
        agents.add("newcomer");
        for (List<Segment> segments : transcripts) {
            for (Segment s : segments) assertThat(s.size()).as("size of %s", s).isEqualTo(oldSize(s));
            for (String primary : agents) {
                for (String receiver : agents) checkSegments(segments, receiver, primary);
            }
        }
        // And through the engine: the snapshot's parity is the re-parse of its messages against the primary's own.
        String primary = sc.primary();
        if (primary != null && sc.target() == Target.LOCAL) {
            Snapshot mine = run.render(state, sc.handoff());
            Snapshot own = run.render(state, sc.handoff(primary, Target.LOCAL));
            List<ParityCheck.Item> reference = ParityCheck.items(own.messages());
            assertThat(mine.parity()).isEqualTo(new Parity(primary, reference.size(),
                    ParityCheck.covered(reference, ParityCheck.items(mine.messages()))));
        }
    }

    static void checkSegments(List<Segment> segments, String receiver, String primary) {
        List<ParityCheck.Item> reference = ParityCheck.items(MessageWriter.write(segments, primary));
        List<ParityCheck.Item> mine = ParityCheck.items(MessageWriter.write(segments, receiver));
        assertThat(ParityCheck.parity(segments, receiver, primary))
                .as("parity of %s against %s over %s", receiver, primary, segments)
                .isEqualTo(new Parity(primary, reference.size(), ParityCheck.covered(reference, mine)));
    }

    /** A segment's size as computed before: on the built narration, plain or escaped text. */
    static int oldSize(Segment s) {
        return switch (s.kind()) {
            case USER, ASSISTANT_TEXT -> s.text().plain().length();
            case SYSTEM -> s.text().escaped().length();
            case STEP -> Math.max(Narration.narrate(s.step()).length(), s.step().tool().length()
                    + s.step().arguments().length() + Narration.nativeToolContent(s.step()).length());
            case MARKER -> s.marker().length();
        };
    }

    // ------------------------------------------------------------------------------------------- generators

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.of("qwen", "claude", "coder", "x called y", "called", " called ", "a(b", "", "q\nw",
                "claude called qwen");
    }

    @Provide
    Arbitrary<String> texts() {
        Arbitrary<String> piece = Arbitraries.of("", "a", "[", "(", "…", "\\", "\\\\", "\n", "\r", "\r\n", "]", ")]",
                " called ", "[result: x]", "[error: y]", "é", "\uD83D\uDE00", "\uD800", "word words", "\n\\", "\r\\");
        return Arbitraries.frequencyOf(Tuple.of(6, piece.list().ofMaxSize(12).map(l -> String.join("", l))),
                Tuple.of(1, Arbitraries.strings().all().ofMaxLength(30)));
    }

    @Provide
    Arbitrary<List<Segment>> oddSegments() {
        Arbitrary<String> text = texts();
        Arbitrary<String> marker = Arbitraries.of("… (12 characters cut here; full text in the session history) …",
                "\\marker", "[m]\n\\x", "m\rn", "(cut)");
        Arbitrary<Datum> datum = Arbitraries.frequencyOf(
                Tuple.of(3, text.map(Datum::of)),
                Tuple.of(1, Combinators.combine(text, marker, text).as(Datum::new)));
        Arbitrary<StepView> step = Combinators.combine(Arbitraries.longs().between(0, 30), names(),
                        Arbitraries.of("c1", "c2").injectNull(0.2), Arbitraries.of("read_file", "grep(x", "", "a\nb",
                                "t called u", "run)"),
                        Arbitraries.of("{}", "{\"a\":\"[x\"}", "{\"q\":\"a\\nb\"}", "a\nb", "(", "\\", "x)]\n[result: y]"),
                        Arbitraries.of(StepView.Outcome.class), datum)
                .as(StepView::new);
        Arbitrary<Segment> segment = Arbitraries.frequencyOf(
                Tuple.of(4, step.map(v -> Segment.step(v.seq(), v.seq(), v))),
                Tuple.of(1, Combinators.combine(Arbitraries.longs().between(0, 30), names(), text)
                        .as(Segment::user)),
                Tuple.of(1, Combinators.combine(Arbitraries.longs().between(0, 30), names(), text)
                        .as(Segment::system)),
                Tuple.of(1, Combinators.combine(Arbitraries.longs().between(0, 30), names(), text)
                        .as(Segment::assistantText)),
                Tuple.of(1, Combinators.combine(Arbitraries.longs().between(0, 30), text)
                        .as((seq, t) -> Segment.baton(t, new Truncation(TruncationKind.TRANSCRIPT_MIDDLE_DROPPED,
                                seq, seq + 1, 2, t)))));
        return segment.list().ofMaxSize(8);
    }

    /** Escaping as written before line starts were found with indexOf: char by char (the oracle). */
    static final class OldEscaping {
        static String escape(String datum) {
            if (datum == null || datum.isEmpty()) return datum == null ? "" : datum;
            StringBuilder out = null;
            int n = datum.length();
            boolean lineStart = true;
            for (int i = 0; i < n; i++) {
                char c = datum.charAt(i);
                if (lineStart && Escaping.needsEscape(c)) {
                    if (out == null) {
                        out = new StringBuilder(n + 8);
                        out.append(datum, 0, i);
                    }
                    out.append('\\');
                }
                if (out != null) out.append(c);
                if (c == '\n') lineStart = true;
                else if (c == '\r') lineStart = !(i + 1 < n && datum.charAt(i + 1) == '\n');
                else lineStart = false;
            }
            return out == null ? datum : out.toString();
        }

        static String unescape(String text) {
            if (text == null || text.isEmpty()) return text;
            StringBuilder out = new StringBuilder(text.length());
            int n = text.length();
            boolean lineStart = true;
            for (int i = 0; i < n; i++) {
                char c = text.charAt(i);
                if (lineStart && c == '\\') {
                    lineStart = false;
                    continue;
                }
                out.append(c);
                if (c == '\n') lineStart = true;
                else if (c == '\r') lineStart = !(i + 1 < n && text.charAt(i + 1) == '\n');
                else lineStart = false;
            }
            return out.toString();
        }
    }
}
