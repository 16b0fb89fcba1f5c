package dev.baton.engine.properties;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.narration.Escaping;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R5 head + tail trim: the head (first USER turn, first ASSISTANT turn after it) is kept in a trimmed transcript, no tool
 * call is separated from its result, the transcript fits its budget (even when the head alone does not), and the newest turn's
 * content is always there.
 */
class HeadTailTrimProperties {
    static final Pattern SEGMENT_CUT = Pattern.compile(
            "\n(… \\(\\d+ characters? cut here; full text in the session history\\) …)\n");

    @Provide
    Arbitrary<SessionArbitraries.Scenario> sessions() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.NORMAL);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> adversarial() {
        return SessionArbitraries.localSessions(SessionArbitraries.Mode.ADVERSARIAL);
    }

    @Property(tries = 200)
    void shouldKeepHeadNewestAndPairsWithinBudget(@ForAll("sessions") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Property(tries = 60)
    void shouldKeepHeadNewestAndPairsWithinBudgetWithAdversarialData(
            @ForAll("adversarial") SessionArbitraries.Scenario sc) {
        check(sc);
    }

    @Provide
    Arbitrary<SessionArbitraries.Scenario> recorded() {
        return SessionArbitraries.recordedSessions();
    }

    @Property(tries = 80)
    void shouldKeepHeadNewestAndPairsWithinBudgetInRecordedSessions(
            @ForAll("recorded") SessionArbitraries.Scenario sc) {
        if (sc.target() == dev.baton.engine.model.Target.LOCAL) check(sc);
    }

    static void check(SessionArbitraries.Scenario sc) {
        Snapshot snap = sc.run().render(sc.handoff());
        List<Message> ms = snap.messages();
        String dump = Renderings.dump(snap);
        int budget = Math.max(sc.policy().transcriptBudgetFor(sc.handoffBudget()), 2_000);

        long sum = 0;
        for (Message m : ms) sum += m.budgetChars();
        assertThat(snap.stats().messageChars()).as("stats.message_chars").isEqualTo(sum);

        checkPairs(ms, dump);

        boolean trimmed = has(snap, TruncationKind.TRANSCRIPT_MIDDLE_DROPPED)
                || has(snap, TruncationKind.TRANSCRIPT_MIDDLE_SUMMARIZED) || has(snap, TruncationKind.SEGMENT_TRIMMED);
        Statistics.label("trimmed").collect(trimmed);
        Turn headUser = null;
        Turn headAssistant = null;
        for (Turn t : sc.turns()) {
            if (headUser == null && t.role() == Role.USER) headUser = t;
            else if (headUser != null && headAssistant == null && t.role() == Role.ASSISTANT) headAssistant = t;
        }
        if (trimmed && headUser != null) {
            // The head is always kept. It leads the transcript, except that a head turn newer than a kept tail turn
            // keeps its seq position inside the tail (docs/rendering.md): so it is present, USER before ASSISTANT.
            int userAt = indexOf(ms, "user", headUser.text());
            assertThat(userAt).as("head USER turn present\n%s", dump).isGreaterThanOrEqualTo(0);
            if (userAt > 0) Statistics.label("head user inside the tail").collect(true);
            if (headAssistant != null && !headAssistant.text().isEmpty()) {
                // searched after the head USER message: an older ASSISTANT turn may say the same text
                int assistantAt = indexOf(ms, "assistant", headAssistant.text(), userAt + 1);
                assertThat(assistantAt).as("head ASSISTANT turn present after the head USER turn\n%s", dump)
                        .isGreaterThan(userAt);
            }
        }

        // Within budget always: even when the head alone does not fit, every kept part is cut to a common cap.
        Statistics.label("head fits").collect(headFits(sc, headUser, headAssistant, budget));
        assertThat(snap.stats().messageChars()).as("within budget %s\n%s", budget, dump).isLessThanOrEqualTo(budget);

        Turn newest = sc.turns().isEmpty() ? null : sc.turns().get(sc.turns().size() - 1);
        if (newest != null && !newest.text().isEmpty() && newest.role() != Role.TOOL) {
            // Present, not necessarily last: when the newest turn is the head ASSISTANT turn it leads the transcript.
            boolean present = false;
            for (Message m : ms) {
                String shown = newest.role() == Role.SYSTEM ? Escaping.unescape(m.content()) : m.content();
                present |= m.role().equals(role(newest.role())) && cutCompatible(newest.text(), shown);
            }
            assertThat(present).as("newest turn %s is present\n%s", newest.seq(), dump).isTrue();
        }
    }

    /** Index of the first message of {@code role} showing {@code text} (possibly cut), or -1. */
    static int indexOf(List<Message> ms, String role, String text) {
        return indexOf(ms, role, text, 0);
    }

    /** The first message at or after {@code from} with this role whose content is (a cut of) the text. */
    static int indexOf(List<Message> ms, String role, String text, int from) {
        for (int i = Math.max(0, from); i < ms.size(); i++) {
            Message m = ms.get(i);
            if (m.role().equals(role) && m.toolCalls().isEmpty() && cutCompatible(text, m.content())) return i;
        }
        return -1;
    }

    static String role(Role r) {
        return switch (r) {
            case USER -> "user";
            case SYSTEM -> "system";
            case ASSISTANT -> "assistant";
            case TOOL -> "tool";
        };
    }

    /** Every own call is answered right after its assistant message; every narration has its outcome. */
    static void checkPairs(List<Message> ms, String dump) {
        for (int i = 0; i < ms.size(); i++) {
            Message m = ms.get(i);
            if (m.role().equals("assistant") && !m.toolCalls().isEmpty()) {
                assertThat(m.content()).as("a tool-calling assistant message carries no text").isEmpty();
                for (int k = 0; k < m.toolCalls().size(); k++) {
                    ToolCall c = m.toolCalls().get(k);
                    assertThat(i + 1 + k).as("result of %s missing\n%s", c.callId(), dump).isLessThan(ms.size());
                    Message r = ms.get(i + 1 + k);
                    assertThat(r.role()).as("result of %s\n%s", c.callId(), dump).isEqualTo("tool");
                    assertThat(r.toolCallId()).as("result of %s\n%s", c.callId(), dump).isEqualTo(c.callId());
                }
                i += m.toolCalls().size();
            } else if (m.role().equals("tool")) {
                throw new AssertionError("tool message without its call at " + i + "\n" + dump);
            } else if (m.role().equals("system") && m.content().startsWith("[")) {
                Renderings.Narrated n = Renderings.narration(m.content());
                assertThat(n).as("narration at %s\n%s", i, dump).isNotNull();
                Renderings.canonicalOutcome(n.outcome());
            }
        }
    }

    /** Generous: the head turns, a full manifest and the middle marker fit the budget. */
    static boolean headFits(SessionArbitraries.Scenario sc, Turn user, Turn assistant, int budget) {
        long head = 0;
        if (user != null) head += user.text().length() + 2L * lineStarts(user.text());
        if (assistant != null) {
            head += assistant.text().length();
            for (ToolStep s : assistant.trail()) {
                head += 2L * (s.arguments().length() + (s.result() == null ? 0 : s.result().length())) + 200;
            }
            for (ToolCall c : assistant.toolCalls()) head += 2L * c.arguments().length() + 200;
        }
        return head + sc.policy().manifestCapChars() + 300 <= budget && !hasLegacyHead(sc, assistant);
    }

    /** The head ASSISTANT turn's legacy results are carried by later TOOL turns: not estimated above. */
    static boolean hasLegacyHead(SessionArbitraries.Scenario sc, Turn assistant) {
        return assistant != null && !assistant.toolCalls().isEmpty();
    }

    static int lineStarts(String s) {
        return Renderings.lines(s).size();
    }

    /** {@code shown} is {@code original}, or a head and a tail of it around a segment-cut marker line. */
    static boolean cutCompatible(String original, String shown) {
        if (shown.equals(original)) return true;
        Matcher m = SEGMENT_CUT.matcher(shown);
        int from = 0;
        while (m.find(from)) {
            String head = shown.substring(0, m.start());
            String tail = shown.substring(m.end());
            if (original.startsWith(head) && original.endsWith(tail)) return true;
            from = m.start() + 1;
        }
        return false;
    }

    static boolean has(Snapshot s, TruncationKind k) {
        for (Truncation t : s.truncations()) if (t.kind() == k) return true;
        return false;
    }
}
