package dev.baton.replay.importer;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.baton.engine.model.Role;
import dev.baton.engine.model.StepStatus;

/** One turn on its way out, before its seq is assigned and before it is fitted to the record limit. */
final class ImportedTurn {
    final String agent;
    final Role role;
    String text;
    final List<Step> trail = new ArrayList<>();
    final List<Call> calls = new ArrayList<>();
    String toolCallId;
    String model;
    Instant occurredAt;
    /** Where it came from, for notes: "path:line step 4". */
    String origin;

    ImportedTurn(String agent, Role role, String text) {
        this.agent = agent;
        this.role = role;
        this.text = text == null ? "" : text;
    }

    ImportedTurn copyWithout() {
        ImportedTurn t = new ImportedTurn(agent, role, "");
        t.model = model;
        t.occurredAt = occurredAt;
        t.origin = origin;
        t.toolCallId = toolCallId;
        return t;
    }

    /** A trail step: the call's arguments are compact JSON object text; result null when none was recorded. */
    static final class Step {
        final String callId;
        final String tool;
        String arguments;
        String result;
        final StepStatus status;

        Step(String callId, String tool, String arguments, String result, StepStatus status) {
            this.callId = callId;
            this.tool = tool;
            this.arguments = arguments;
            this.result = result;
            this.status = status;
        }
    }

    /** A legacy bare call. */
    static final class Call {
        final String callId;
        final String tool;
        String arguments;

        Call(String callId, String tool, String arguments) {
            this.callId = callId;
            this.tool = tool;
            this.arguments = arguments;
        }
    }
}
