package dev.baton.consumer.dialect;

import static dev.baton.consumer.dialect.DialectCases.call;
import static dev.baton.consumer.dialect.DialectCases.other;
import static dev.baton.consumer.dialect.DialectCases.own;
import static dev.baton.consumer.dialect.DialectCases.q;
import static dev.baton.consumer.dialect.DialectCases.sys;
import static dev.baton.consumer.dialect.DialectCases.tool;
import static dev.baton.consumer.dialect.DialectCases.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import dev.baton.consumer.SnapshotPrompts;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The invariants of docs/receivers.md on generated snapshots that follow the snapshot grammar (optional leading
 * messages, the first user message, then narration lines escaped per R2, other agents' named texts, own texts, own
 * messages of 1–3 calls each followed by one tool message per call, user messages; reused and odd call ids): in every
 * dialect {@link RequestCheck} finds nothing and two builds give the same bytes.
 */
class DialectPropertiesTest {

    private static final RequestOptions OPTIONS = new RequestOptions("m", 4096);

    @Property(tries = 1000)
    void shouldKeepEveryRuleInEveryDialect(@ForAll("snapshots") String line) throws Exception {
        JsonNode snapshot = SnapshotPrompts.readJson(line);
        for (Dialect d : Dialect.all()) {
            ReceiverRequest request = ReceiverRequests.build(snapshot, d, OPTIONS);
            assertThat(RequestCheck.violations(snapshot, d, request)).as("%s for %s", d, line).isEmpty();
            assertThat(ReceiverRequests.build(snapshot, d, OPTIONS).toJson()).isEqualTo(request.toJson());
        }
    }

    @Provide
    Arbitrary<String> snapshots() {
        Arbitrary<List<String>> leading = Arbitraries.oneOf(narration(), otherText(), ownText()).list().ofMaxSize(2)
                .map(DialectPropertiesTest::flatten);
        Arbitrary<List<String>> body = Arbitraries.oneOf(narration(), otherText(), ownText(), ownCalls(), userText())
                .list().ofMaxSize(10).map(DialectPropertiesTest::flatten);
        Arbitrary<Boolean> withUser = Arbitraries.of(true, true, true, false);
        return Combinators.combine(leading, withUser, text(), body).as((lead, hasUser, task, rest) -> {
            List<String> messages = new ArrayList<>(lead);
            if (hasUser) {
                messages.add(user(task));
            }
            messages.addAll(rest);
            return DialectCases.local("hp", messages.toArray(String[]::new));
        });
    }

    private static List<String> flatten(List<List<String>> parts) {
        List<String> out = new ArrayList<>();
        parts.forEach(out::addAll);
        return out;
    }

    /** Texts with the characters that matter: markers at line starts, line breaks of every kind, quotes. */
    private static Arbitrary<String> text() {
        return Arbitraries.strings().withChars('a', 'b', ' ', '[', '(', '\\', '…', '\n', '\r', '"', 'é', '{', '}')
                .ofMaxLength(14);
    }

    private static Arbitrary<String> arguments() {
        return Arbitraries.oneOf(Arbitraries.of("{}", "{\"n\":1e3}", "{\"big\":123456789012345678901234567890}",
                "{\"r\":1.10,\"a\":[1,{\"b\":\"}\"}]}"), text().map(t -> "{\"s\":" + q(t) + "}"));
    }

    private static Arbitrary<List<String>> narration() {
        return Combinators.combine(Arbitraries.of("grep", "run_tests"), text(), text()).as((tool, args, result) ->
                List.of(sys("[qwen-coder called " + tool + "({\"q\":" + DialectTexts.escape(q(args)) + "})]\n[result: "
                        + DialectTexts.escape(result) + "]")));
    }

    private static Arbitrary<List<String>> otherText() {
        return Combinators.combine(Arbitraries.of("qwen-coder", "reviewer_2"), text()).as((n, t) -> List.of(other(n, t)));
    }

    private static Arbitrary<List<String>> ownText() {
        return text().map(t -> List.of(own(t)));
    }

    private static Arbitrary<List<String>> userText() {
        return text().map(t -> List.of(user(t)));
    }

    /** An own message of 1–3 calls (ids often reused or invalid for some dialect), then one result per call. */
    private static Arbitrary<List<String>> ownCalls() {
        Arbitrary<String> id = Arbitraries.of("c1", "c1", "c2", "call_7", "toolu:01", "x.y", "abcdefgh1", "b00000002",
                "baton_1", "baton_3", "ZZZZZZZZZ");
        Arbitrary<String[]> oneCall = Combinators.combine(id, Arbitraries.of("read", "run_tests", "ls"), arguments(), text())
                .as((i, t, a, r) -> new String[] {i, t, a, r});
        return Combinators.combine(Arbitraries.of("", "", "Let me look."), oneCall.list().ofMinSize(1).ofMaxSize(3))
                .as((text, calls) -> {
                    List<String> out = new ArrayList<>();
                    out.add(own(text, calls.stream().map(c -> call(c[0], c[1], c[2])).toArray(String[]::new)));
                    calls.forEach(c -> out.add(tool(c[0], c[3])));
                    return out;
                });
    }
}
