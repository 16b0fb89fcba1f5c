package dev.baton.consumer.dialect;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import dev.baton.consumer.dialect.RequestView.NativeCall;
import dev.baton.consumer.dialect.RequestView.Piece;
import dev.baton.consumer.dialect.SnapshotUnits.Call;
import dev.baton.consumer.dialect.SnapshotUnits.Narration;
import dev.baton.consumer.dialect.SnapshotUnits.Other;
import dev.baton.consumer.dialect.SnapshotUnits.Own;
import dev.baton.consumer.dialect.SnapshotUnits.Result;
import dev.baton.consumer.dialect.SnapshotUnits.Unit;
import dev.baton.consumer.dialect.SnapshotUnits.User;

/**
 * Checks a dialect's request against its snapshot: the receiver's structural rules ({@link ProviderRules}) and the
 * invariants of docs/receivers.md, "What holds in every dialect": R1 (the native calls are exactly the snapshot's own
 * calls, in order), R2 (narration moved verbatim; no result text unescaped in user or system text), R5 (checked with
 * the provider's rules: a call's result in the next turn the dialect allows), every message's text present in the
 * snapshot's order, the notes that say where text moved, and determinism. An empty list means the request passes.
 */
public final class RequestCheck {

    private RequestCheck() {
    }

    /** Every violated rule, as readable lines; empty when the request keeps all of them. */
    public static List<String> violations(JsonNode snapshot, Dialect dialect, ReceiverRequest request) {
        List<String> out = new ArrayList<>();
        SnapshotUnits s;
        RequestView view;
        try {
            s = SnapshotUnits.of(snapshot);
            view = new RequestView(dialect, request);
        } catch (IllegalArgumentException e) {
            out.add("unreadable: " + e.getMessage());
            return out;
        }
        if (request.dialect() != dialect) {
            out.add("request is of dialect " + request.dialect() + ", checked as " + dialect);
        }
        ProviderRules.check(dialect, view.body, out);
        nativeCalls(s, dialect, view, out);
        textsInOrder(s, dialect, view, out);
        resultsNotAsNarration(s, dialect, view, out);
        notes(s, dialect, view, out);
        noReasoning(view.body, "", out);
        deterministic(snapshot, dialect, request, out);
        return out;
    }

    /** Members and block types that carry a model's reasoning in some receiver's API. */
    private static final java.util.Set<String> REASONING_MEMBERS = java.util.Set.of("thinking", "redacted_thinking",
            "signature", "reasoning", "reasoning_content", "encrypted_content", "thought", "thoughtSignature",
            "thought_signature");

    /** Members whose object value is a tool's data (arguments, results): a tool may well take an argument "thought". */
    private static final java.util.Set<String> DATA_MEMBERS = java.util.Set.of("input", "args", "arguments", "response",
            "output");

    /**
     * docs/receivers.md, "Reasoning": no request carries reasoning (Anthropic thinking blocks, Responses reasoning
     * items, Gemini thought parts and signatures, chat {@code reasoning_content}): only the provider that wrote a
     * reasoning block can verify it, and Baton's input has none to send.
     */
    private static void noReasoning(JsonNode node, String path, List<String> out) {
        if (node.isObject()) {
            node.properties().forEach(e -> {
                if (REASONING_MEMBERS.contains(e.getKey())) {
                    out.add("reasoning: " + path + "/" + e.getKey() + " carries reasoning");
                }
                if (!(DATA_MEMBERS.contains(e.getKey()) && e.getValue().isObject())) {
                    noReasoning(e.getValue(), path + "/" + e.getKey(), out);
                }
            });
            String type = node.path("type").asText("");
            if (REASONING_MEMBERS.contains(type)) {
                out.add("reasoning: " + path + " is a " + type + " item");
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                noReasoning(node.get(i), path + "/" + i, out);
            }
        }
    }

    /** R1: the request's native calls are the snapshot's own calls (tool and arguments), in order; nothing more. */
    private static void nativeCalls(SnapshotUnits s, Dialect dialect, RequestView view, List<String> out) {
        List<Call> own = dialect == Dialect.ALTERNATING ? List.of() : s.calls();
        if (view.calls.size() != own.size()) {
            out.add("R1: " + view.calls.size() + " native calls, the snapshot has " + own.size() + " own calls"
                    + (dialect == Dialect.ALTERNATING ? " (alternating has none: own calls are text)" : ""));
            return;
        }
        for (int i = 0; i < own.size(); i++) {
            NativeCall n = view.calls.get(i);
            Call c = own.get(i);
            if (!n.tool().equals(c.tool()) || !sameValue(n.arguments(), RequestView.parse(c.arguments()))) {
                out.add("R1: native call " + (i + 1) + " is " + n.tool() + n.arguments() + ", the snapshot's own call is "
                        + c.tool() + c.arguments());
            }
        }
    }

    /** Every unit's text is in the request, in the snapshot's order (narration verbatim: R2). */
    private static void textsInOrder(SnapshotUnits s, Dialect dialect, RequestView view, List<String> out) {
        String stream = view.stream();
        int at = 0;
        for (String expected : expectedTexts(s, dialect)) {
            int found = stream.indexOf(expected, at);
            if (found < 0) {
                out.add("order: text " + abbreviate(expected) + (stream.contains(expected) ? " is out of order" : " is missing"));
                continue;
            }
            at = found + expected.length();
        }
    }

    /** The texts of the snapshot's units as the dialect must carry them, in order. */
    private static List<String> expectedTexts(SnapshotUnits s, Dialect dialect) {
        boolean named = dialect == Dialect.OPENAI_CHAT;
        boolean asText = dialect == Dialect.ALTERNATING;
        List<String> texts = new ArrayList<>();
        for (Unit u : s.units()) {
            if (u instanceof Narration n) {
                texts.add(n.text());
            } else if (u instanceof User n) {
                texts.add(n.text());
            } else if (u instanceof Other o) {
                texts.add(named ? o.text() : DialectTexts.attributed(o.name(), o.text()));
            } else if (u instanceof Own o) {
                if (!o.text().isEmpty()) {
                    texts.add(o.text());
                }
                if (asText) {
                    for (Call c : o.calls()) {
                        texts.add(DialectTexts.callLine(s.toAgent(), c.tool(), c.arguments()));
                    }
                }
            } else if (u instanceof Result r) {
                texts.add(asText ? DialectTexts.resultLine(r.text()) : r.text());
            }
        }
        texts.removeIf(String::isEmpty);
        return texts;
    }

    /**
     * R2: a result whose lines could pass for narrated lines is never placed as it is into user or system text (unless
     * the snapshot's own user or narration text holds it too).
     */
    private static void resultsNotAsNarration(SnapshotUnits s, Dialect dialect, RequestView view, List<String> out) {
        for (Unit u : s.units()) {
            if (!(u instanceof Result r) || r.text().isEmpty() || DialectTexts.escape(r.text()).equals(r.text())) {
                continue;
            }
            boolean quotedBySnapshot = s.units().stream().anyMatch(x -> (x instanceof Narration n && n.text().contains(r.text()))
                    || (x instanceof User v && v.text().contains(r.text())));
            // a result that reads exactly like one of the dialect's own lines is found where that line stands: it is the
            // dialect's line there, the result itself is in its native place (a generated session had such a result)
            boolean dialectLine = r.text().equals(DialectTexts.OPENING_LINE) || r.text().equals(DialectTexts.CONTINUATION_LINE)
                    || r.text().equals(DialectTexts.OPENING_NARRATION_LINE);
            // another result whose escaped form is this raw text gives the same "[result: …]" line, rightly escaped
            boolean escapedFormOfAnother = s.units().stream().anyMatch(x -> x instanceof Result o && o != r
                    && DialectTexts.escape(o.text()).equals(r.text()));
            if (quotedBySnapshot || dialectLine || escapedFormOfAnother) {
                continue;
            }
            for (Piece p : view.texts) {
                // the notes are the dialect's own words (the own-calls note shows a "[result: …]" line)
                String text = p.text().replace(DialectTexts.MOVED_NARRATION_NOTE, "")
                        .replace(DialectTexts.ATTRIBUTED_TEXT_NOTE, "").replace(DialectTexts.OWN_CALLS_AS_TEXT_NOTE, "");
                if (p.userOrSystem() && placedAsText(text, r.text())) {
                    out.add("R2: result " + abbreviate(r.text()) + " appears unescaped in user or system text");
                    break;
                }
            }
        }
    }

    /** {@code raw} as a result line, or as a block of its own (a whole text, or between blank lines) of {@code text}. */
    private static boolean placedAsText(String text, String raw) {
        return text.contains("[result: " + raw + "]") || text.equals(raw) || text.startsWith(raw + "\n\n")
                || text.endsWith("\n\n" + raw) || text.contains("\n\n" + raw + "\n\n");
    }

    /** The framing tells the truth: the notes of the system text where narration, other text or own calls moved. */
    private static void notes(SnapshotUnits s, Dialect dialect, RequestView view, List<String> out) {
        String system = view.texts.isEmpty() ? "" : view.texts.get(0).text();
        boolean moves = dialect == Dialect.ANTHROPIC_MESSAGES || dialect == Dialect.GEMINI || dialect == Dialect.SINGLE_SYSTEM
                || dialect == Dialect.MISTRAL_TOOLS || dialect == Dialect.ALTERNATING;
        if (moves && s.has(Narration.class) && !system.contains(DialectTexts.MOVED_NARRATION_NOTE)) {
            out.add("framing: narration moves into user turns but the system text lacks the moved-narration note");
        }
        if (dialect != Dialect.OPENAI_CHAT && s.has(Other.class) && !system.contains(DialectTexts.ATTRIBUTED_TEXT_NOTE)) {
            out.add("framing: another agent's text is attributed but the system text lacks the attributed-text note");
        }
        if (dialect == Dialect.ALTERNATING && !s.calls().isEmpty() && !system.contains(DialectTexts.OWN_CALLS_AS_TEXT_NOTE)) {
            out.add("framing: own calls are text but the system text lacks the own-calls note");
        }
    }

    /** R10 for the kits: building the request again gives the same bytes. */
    private static void deterministic(JsonNode snapshot, Dialect dialect, ReceiverRequest request, List<String> out) {
        JsonNode body = RequestView.parse(request.toJson());
        RequestOptions options = new RequestOptions(body.path("model").asText(RequestOptions.DEFAULT_MODEL),
                body.path("max_tokens").asInt(RequestOptions.DEFAULT_MAX_TOKENS));
        String first = ReceiverRequests.build(snapshot, dialect, options).toJson();
        String second = ReceiverRequests.build(snapshot, dialect, options).toJson();
        if (!first.equals(second)) {
            out.add("determinism: two builds of the same snapshot differ");
        }
    }

    /** JSON values equal, numbers compared by value (1e3 equals 1000, 1.10 equals 1.1). */
    static boolean sameValue(JsonNode a, JsonNode b) {
        Comparator<JsonNode> numbersByValue = (x, y) -> {
            if (x.isNumber() && y.isNumber()) {
                return x.decimalValue().compareTo(y.decimalValue());
            }
            return x.equals(y) ? 0 : 1;
        };
        return a.equals(numbersByValue, b);
    }

    static String abbreviate(String text) {
        String oneLine = text.replace("\n", "\\n");
        return "\"" + (oneLine.length() > 60 ? oneLine.substring(0, 57) + "..." : oneLine) + "\"";
    }
}
