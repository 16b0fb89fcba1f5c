package dev.baton.consumer.dialect;

import java.util.ArrayList;
import java.util.List;

import dev.baton.consumer.dialect.SnapshotUnits.Call;
import dev.baton.consumer.dialect.SnapshotUnits.Narration;
import dev.baton.consumer.dialect.SnapshotUnits.Other;
import dev.baton.consumer.dialect.SnapshotUnits.Own;
import dev.baton.consumer.dialect.SnapshotUnits.Result;
import dev.baton.consumer.dialect.SnapshotUnits.Unit;
import dev.baton.consumer.dialect.SnapshotUnits.User;

/**
 * The turns of the strict dialects (docs/receivers.md, "Turns of strict dialects"): narration and user units are
 * user-role content, other and own units assistant-role content, results the first pieces of the user turn after their
 * call; consecutive content of one role is one turn; the first turn is a user turn and the last a user turn with text.
 */
final class StrictTurns {

    enum Role { USER, ASSISTANT }

    sealed interface Piece permits Text, CallPiece, ResultPiece {
    }

    /** Text of one unit (or the opening / continuation line). */
    record Text(String text) implements Piece {
    }

    record CallPiece(Call call) implements Piece {
    }

    record ResultPiece(Call call, String text) implements Piece {
    }

    record Turn(Role role, List<Piece> pieces) {
    }

    private StrictTurns() {
    }

    /**
     * The turns of {@code s}. With {@code ownCallsAsText} ({@code chat-template:alternating}), an own unit is one text
     * (its text, then one line per call, separated by line breaks) and a result the text {@code [result: …]}.
     */
    static List<Turn> of(SnapshotUnits s, boolean ownCallsAsText) {
        List<Turn> turns = new ArrayList<>();
        for (Unit u : s.units()) {
            if (u instanceof Narration n) {
                add(turns, Role.USER, new Text(n.text()));
            } else if (u instanceof User n) {
                add(turns, Role.USER, new Text(n.text()));
            } else if (u instanceof Other o) {
                add(turns, Role.ASSISTANT, new Text(DialectTexts.attributed(o.name(), o.text())));
            } else if (u instanceof Own o && ownCallsAsText) {
                List<String> lines = new ArrayList<>();
                if (!o.text().isEmpty()) {
                    lines.add(o.text());
                }
                for (Call c : o.calls()) {
                    lines.add(DialectTexts.callLine(s.toAgent(), c.tool(), c.arguments()));
                }
                add(turns, Role.ASSISTANT, new Text(String.join("\n", lines)));
            } else if (u instanceof Own o) {
                if (!o.text().isEmpty()) {
                    add(turns, Role.ASSISTANT, new Text(o.text()));
                }
                for (Call c : o.calls()) {
                    add(turns, Role.ASSISTANT, new CallPiece(c));
                }
            } else if (u instanceof Result r && ownCallsAsText) {
                add(turns, Role.USER, new Text(DialectTexts.resultLine(r.text())));
            } else if (u instanceof Result r) {
                add(turns, Role.USER, new ResultPiece(r.call(), r.text()));
            }
        }
        if (!turns.isEmpty() && turns.get(0).role() == Role.ASSISTANT) {
            turns.add(0, new Turn(Role.USER, new ArrayList<>(List.of(new Text(DialectTexts.OPENING_LINE)))));
        }
        Turn last = turns.isEmpty() ? null : turns.get(turns.size() - 1);
        if (last == null || last.role() == Role.ASSISTANT || last.pieces().stream().noneMatch(p -> p instanceof Text)) {
            add(turns, Role.USER, new Text(DialectTexts.CONTINUATION_LINE));
        }
        return turns;
    }

    private static void add(List<Turn> turns, Role role, Piece piece) {
        if (turns.isEmpty() || turns.get(turns.size() - 1).role() != role) {
            turns.add(new Turn(role, new ArrayList<>()));
        }
        turns.get(turns.size() - 1).pieces().add(piece);
    }
}
