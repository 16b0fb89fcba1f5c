package dev.baton.engine.layout;

import dev.baton.engine.model.ToolCall;
import dev.baton.engine.narration.Narration;
import dev.baton.engine.narration.StepView;
import dev.baton.engine.snapshot.Message;

import java.util.ArrayList;
import java.util.List;

/**
 * R1 — writes segments as chat messages for one receiver. The receiver's own steps replay natively (an assistant
 * message with its tool calls, then one tool message per call; consecutive own steps of one turn share the assistant
 * message); every other agent's step, and every step whose call is unknown, is narrated as a system message. The
 * receiver's own text is a plain assistant message; another agent's text carries {@code name}.
 */
public final class MessageWriter {
    private MessageWriter() {
    }

    public static List<Message> write(List<Segment> segments, String receiver) {
        return writeCounted(segments, receiver).messages();
    }

    /**
     * Messages and the characters they count against a budget ({@link Message#budgetChars()} summed), counted while
     * writing: a message kept with its segment is counted from the segment, without reading it again.
     */
    public record Written(List<Message> messages, long budgetChars) {
    }

    /** {@link #write} with the messages' budget characters. */
    public static Written writeCounted(List<Segment> segments, String receiver) {
        List<Message> out = new ArrayList<>(segments.size() + 8);
        long chars = 0;
        int i = 0;
        while (i < segments.size()) {
            Segment s = segments.get(i);
            if (isNative(s, receiver)) {
                // Group consecutive own steps of the same turn into one assistant message with several calls.
                List<StepView> group = new ArrayList<>();
                long home = s.order();
                while (i < segments.size() && isNative(segments.get(i), receiver) && segments.get(i).order() == home) {
                    group.add(segments.get(i).step());
                    i++;
                }
                List<ToolCall> calls = new ArrayList<>();
                for (StepView g : group) calls.add(new ToolCall(g.callId(), g.tool(), g.arguments()));
                Message call = new Message("assistant", null, "", calls, null);
                out.add(call);
                chars += call.budgetChars();
                for (StepView g : group) {
                    Message result = new Message("tool", null, Narration.nativeToolContent(g), List.of(), g.callId());
                    out.add(result);
                    chars += result.budgetChars();
                }
                continue;
            }
            out.add(message(s, receiver));
            chars += s.messageChars;
            i++;
        }
        return new Written(out, chars);
    }

    /** True when {@code receiver} gets segment {@code s} natively: its own step with a known call. */
    public static boolean isNative(Segment s, String receiver) {
        // A step without a call id is a TOOL turn whose call is unknown: the receiver never issued such a call.
        return s.kind() == Segment.Kind.STEP && s.step().callId() != null && s.step().agent().equals(receiver);
    }

    static Message message(Segment s, String receiver) {
        // Kept with the segment: a segment in a render cache is written once, whatever the number of hand-offs it is
        // shown in. Only the thread rendering the segment's session writes it (one at a time, like the LayoutCache
        // that holds it), so the message and its characters are seen together.
        boolean own = s.kind() == Segment.Kind.ASSISTANT_TEXT && receiver.equals(s.agent());
        Message m = own ? s.ownMessage : s.message;
        if (m == null) {
            m = build(s, receiver);
            s.messageChars = m.budgetChars(); // the same for both messages: the same content, no calls
            if (own) s.ownMessage = m;
            else s.message = m;
        }
        return m;
    }

    private static Message build(Segment s, String receiver) {
        return switch (s.kind()) {
            // shown(): built once per segment, and a segment kept in a render cache (LayoutCache) lives across hand-offs
            case USER -> Message.user(s.shown());
            case SYSTEM, STEP, MARKER -> Message.system(s.shown());
            case ASSISTANT_TEXT -> Message.assistant(receiver.equals(s.agent()) ? null : s.agent(), s.shown());
        };
    }
}
