package dev.baton.engine.properties;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.model.ToolStep;
import dev.baton.engine.model.Turn;
import dev.baton.engine.snapshot.CallLedgerEntry;
import dev.baton.engine.snapshot.CallLedgerView;
import dev.baton.engine.snapshot.Snapshot;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The call ledger (docs/rendering.md, "Call ledger") against a reference model of the session's calls: every call
 * applied is in the ledger exactly once (in a kept entry's counts, or in the dropped counts), identical calls are
 * one entry, the newest {@code call_ledger_entries} entries are kept (the most recently used), and every hash is
 * recomputed here by an independent canonicalisation (a hand-written JSON reader, not the engine's Jackson one) and
 * {@link MessageDigest}.
 */
class CallLedgerProperties {

    record Case(SessionArbitraries.Scenario scenario, int bound) {
    }

    @Provide
    Arbitrary<Case> unbounded() {
        return Arbitraries.oneOf(SessionArbitraries.sessions(SessionArbitraries.Mode.NORMAL),
                        SessionArbitraries.recordedSessions())
                .map(sc -> new Case(sc, 10_000));
    }

    @Provide
    Arbitrary<Case> bounded() {
        return Combinators.combine(Arbitraries.oneOf(SessionArbitraries.sessions(SessionArbitraries.Mode.SMALL),
                        SessionArbitraries.recordedSessions()), Arbitraries.integers().between(1, 6))
                .as(Case::new);
    }

    @Property(tries = 80)
    void shouldCountEveryCallOfTheStateInTheLedgerExactlyOnce(@ForAll("unbounded") Case c) {
        Reference ref = Reference.of(c.scenario().turns(), c.bound());
        CallLedgerView l = render(c);
        assertMatches(l, ref);
        assertThat(l.droppedEntries()).isZero();
        long counted = 0;
        for (CallLedgerEntry e : l.entries()) counted += e.count();
        assertThat(counted).as("every call counted once").isEqualTo(ref.calls).isEqualTo(l.calls());
    }

    @Property(tries = 80)
    void shouldKeepTheNewestEntriesWithinTheBoundAndCountTheRest(@ForAll("bounded") Case c) {
        Reference ref = Reference.of(c.scenario().turns(), c.bound());
        CallLedgerView l = render(c);
        assertMatches(l, ref);
        assertThat(l.entries()).hasSizeLessThanOrEqualTo(c.bound());
        long kept = 0;
        for (CallLedgerEntry e : l.entries()) kept += e.count();
        assertThat(kept + l.droppedCalls()).as("kept and dropped calls are every call").isEqualTo(ref.calls);
        assertThat(l.droppedEntries()).isEqualTo(ref.droppedEntries);
    }

    @Property(tries = 60)
    void shouldSayWhereTheReceiverSeesEachCall(@ForAll("unbounded") Case c) {
        Snapshot s = c.scenario().withPolicy(policy(c)).run().render(c.scenario().handoff());
        if (s.callLedger() == null) return;
        for (CallLedgerEntry e : s.callLedger().entries()) {
            if (s.target() == Target.CLAUDE_CLI) {
                assertThat(e.visible()).isEqualTo(CallLedgerEntry.Visibility.NOT_SHOWN);
            } else if (e.visible() == CallLedgerEntry.Visibility.NATIVE) {
                assertThat(e.agent()).isEqualTo(s.toAgent());
                assertThat(s.messages()).anySatisfy(m -> assertThat(m.toolCalls())
                        .anySatisfy(tc -> assertThat(tc.callId()).isEqualTo(e.callId())));
            } else if (e.visible() == CallLedgerEntry.Visibility.NARRATED) {
                assertThat(s.messages()).anySatisfy(m -> assertThat(m.content())
                        .startsWith("[" + e.agent() + " called " + e.tool() + "("));
            }
        }
    }

    static dev.baton.engine.policy.Policy policy(Case c) {
        return c.scenario().policy().toBuilder().callLedgerEntries(c.bound()).build();
    }

    static CallLedgerView render(Case c) {
        SessionArbitraries.Scenario sc = c.scenario().withPolicy(policy(c));
        Snapshot s = sc.run().render(sc.handoff());
        if (s.callLedger() == null) return new CallLedgerView(List.of(), 0, 0, 0);
        return s.callLedger();
    }

    static void assertMatches(CallLedgerView l, Reference ref) {
        List<Group> expected = new ArrayList<>(ref.groups.values());
        java.util.Collections.reverse(expected); // newest first
        assertThat(l.entries()).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            Group g = expected.get(i);
            CallLedgerEntry e = l.entries().get(i);
            assertThat(e.tool()).isEqualTo(g.tool);
            assertThat(e.argumentsSha256()).as("canonical arguments of %s", g.arguments)
                    .isEqualTo(sha256(Canonical.of(g.arguments)));
            assertThat(List.of(e.ok(), e.error(), e.cleared(), e.unanswered()))
                    .isEqualTo(List.of(g.ok, g.error, g.cleared, g.unanswered));
            assertThat(e.count()).isEqualTo(g.ok + g.error + g.cleared + g.unanswered);
            assertThat(e.seq()).isEqualTo(g.seq);
            assertThat(e.firstSeq()).isEqualTo(g.firstSeq);
            assertThat(e.agent()).isEqualTo(g.agent);
            assertThat(e.callId()).isEqualTo(g.callId);
            assertThat(e.status()).isEqualTo(g.status);
            assertThat(e.resultSha256()).isEqualTo(g.result == null ? null : sha256(g.result));
            assertThat(e.resultBytes()).isEqualTo(g.result == null ? 0 : g.result.getBytes(StandardCharsets.UTF_8).length);
        }
    }

    // ----------------------------------------------------------------------------------------- reference model

    static final class Group {
        String tool;
        String arguments;
        long ok;
        long error;
        long cleared;
        long unanswered;
        long firstSeq;
        long seq;
        String agent;
        String callId;
        String status;
        String result;
    }

    /** The session's calls, applied in seq order, in an LRU map of the given capacity. */
    static final class Reference {
        final LinkedHashMap<String, Group> groups = new LinkedHashMap<>();
        final Map<String, String[]> open = new LinkedHashMap<>(); // call id -> tool, arguments
        long calls;
        long droppedEntries;
        int bound;

        static Reference of(List<Turn> turns, int bound) {
            Reference r = new Reference();
            r.bound = bound;
            List<Turn> sorted = new ArrayList<>(turns);
            sorted.sort(java.util.Comparator.comparingLong(Turn::seq));
            for (Turn t : sorted) r.apply(t);
            return r;
        }

        void apply(Turn t) {
            if (t.role() == Role.ASSISTANT) {
                for (ToolStep s : t.trail()) {
                    String status = s.status().name();
                    call(t, s.callId(), s.tool(), s.arguments(), status,
                            status.equals("CLEARED") ? null : (s.result() == null ? "" : s.result()));
                }
                for (ToolCall c : t.toolCalls()) {
                    call(t, c.callId(), c.tool(), c.arguments(), "UNANSWERED", null);
                    if (c.callId() != null) {
                        open.remove(c.callId());
                        open.put(c.callId(), new String[]{c.tool(), c.arguments()});
                    }
                }
            } else if (t.role() == Role.TOOL && t.toolCallId() != null) {
                String[] c = open.remove(t.toolCallId());
                if (c == null) return;
                Group g = groups.get(c[0] + "\u0000" + Canonical.of(c[1]));
                if (g == null || g.unanswered == 0) return;
                g.unanswered--;
                g.ok++;
                if (t.toolCallId().equals(g.callId) && g.status.equals("UNANSWERED")) {
                    g.status = "OK";
                    g.result = t.text();
                }
            }
        }

        void call(Turn t, String callId, String tool, String arguments, String status, String result) {
            calls++;
            String key = tool + "\u0000" + Canonical.of(arguments);
            Group g = groups.remove(key);
            if (g == null) {
                g = new Group();
                g.tool = tool;
                g.firstSeq = t.seq();
            }
            groups.put(key, g);
            g.arguments = arguments;
            switch (status) {
                case "OK" -> g.ok++;
                case "ERROR" -> g.error++;
                case "CLEARED" -> g.cleared++;
                default -> g.unanswered++;
            }
            g.seq = t.seq();
            g.agent = t.agent();
            g.callId = callId;
            g.status = status;
            g.result = result;
            Iterator<Group> it = groups.values().iterator();
            while (groups.size() > bound) {
                it.next();
                it.remove();
                droppedEntries++;
            }
        }
    }

    static String sha256(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder();
            for (byte b : d) sb.append(String.format("%02x", b & 0xff));
            return sb.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * An independent canonicalisation of a JSON object: a character-level reader (escapes decoded), members sorted
     * by name with a stable sort, strings re-escaped as docs/audit.md says, number literals as written.
     */
    static final class Canonical {
        final String s;
        int i;

        Canonical(String s) {
            this.s = s;
        }

        static String of(String json) {
            Canonical c = new Canonical(json);
            StringBuilder out = new StringBuilder();
            c.value(out);
            return out.toString();
        }

        void skip() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
        }

        void value(StringBuilder out) {
            skip();
            char ch = s.charAt(i);
            if (ch == '{') {
                i++;
                List<Map.Entry<String, String>> members = new ArrayList<>();
                skip();
                if (s.charAt(i) == '}') {
                    i++;
                } else {
                    while (true) {
                        skip();
                        String name = string();
                        skip();
                        i++; // ':'
                        StringBuilder v = new StringBuilder();
                        value(v);
                        members.add(Map.entry(name, v.toString()));
                        skip();
                        if (s.charAt(i++) == '}') break; // else ','
                    }
                }
                members.sort(Map.Entry.comparingByKey());
                out.append('{');
                for (int k = 0; k < members.size(); k++) {
                    if (k > 0) out.append(',');
                    quote(members.get(k).getKey(), out);
                    out.append(':').append(members.get(k).getValue());
                }
                out.append('}');
            } else if (ch == '[') {
                i++;
                out.append('[');
                skip();
                if (s.charAt(i) == ']') {
                    i++;
                } else {
                    boolean first = true;
                    while (true) {
                        if (!first) out.append(',');
                        first = false;
                        value(out);
                        skip();
                        if (s.charAt(i++) == ']') break;
                    }
                }
                out.append(']');
            } else if (ch == '"') {
                quote(string(), out);
            } else {
                int start = i;
                while (i < s.length() && ",]} \t\r\n".indexOf(s.charAt(i)) < 0) i++;
                out.append(s, start, i);
            }
        }

        String string() {
            StringBuilder sb = new StringBuilder();
            i++; // opening quote
            while (true) {
                char ch = s.charAt(i++);
                if (ch == '"') return sb.toString();
                if (ch != '\\') {
                    sb.append(ch);
                    continue;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'u' -> {
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> sb.append(e); // " \ /
                }
            }
        }

        static void quote(String v, StringBuilder out) {
            Map<Character, String> esc = new HashMap<>(Map.of('"', "\\\"", '\\', "\\\\", '\b', "\\b", '\t', "\\t",
                    '\n', "\\n", '\f', "\\f", '\r', "\\r"));
            out.append('"');
            for (char ch : v.toCharArray()) {
                if (esc.containsKey(ch)) out.append(esc.get(ch));
                else if (ch < 0x20) out.append("\\u00").append(Character.forDigit(ch >> 4, 16)).append(Character.forDigit(ch & 15, 16));
                else out.append(ch);
            }
            out.append('"');
        }
    }
}
