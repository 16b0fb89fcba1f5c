package dev.baton.engine.trim;

import dev.baton.engine.layout.Segment;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.narration.Narration;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.tokens.Tokenizer;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Token sizes of segments for a token cap, receiver-independent like their character sizes (R9): a step counts the
 * larger of its narrated form and its native form (tool name, arguments and tool-message content, each encoded on its
 * own), so no receiver's rendering of a segment has more tokens than the segment counts. Every other segment counts
 * the content it renders as. Sizes are remembered per segment instance for the length of one rendering.
 */
public final class TokenMeasure {
    private final Tokenizer tokenizer;
    private final Map<Segment, Integer> sizes = new IdentityHashMap<>();

    public TokenMeasure(Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    public Tokenizer tokenizer() {
        return tokenizer;
    }

    /** Tokens of one segment, whoever receives it. */
    public int size(Segment s) {
        Integer known = sizes.get(s);
        if (known != null) return known;
        int n = switch (s.kind()) {
            case USER, ASSISTANT_TEXT -> tokenizer.count(s.text().plain());
            case SYSTEM -> tokenizer.count(s.systemContent());
            case MARKER -> tokenizer.count(s.marker());
            case STEP -> Math.max(tokenizer.count(Narration.narrate(s.step())),
                    tokenizer.count(s.step().tool()) + tokenizer.count(s.step().arguments())
                            + tokenizer.count(Narration.nativeToolContent(s.step())));
        };
        sizes.put(s, n);
        return n;
    }

    /** Tokens of a list of segments. */
    public long size(List<Segment> segments) {
        long n = 0;
        for (Segment s : segments) n += size(s);
        return n;
    }

    /** Tokens of written messages, counted as the character budget counts them: content, tool names, arguments. */
    public static long ofMessages(List<Message> messages, Tokenizer tokenizer) {
        long n = 0;
        for (Message m : messages) {
            n += tokenizer.count(m.content());
            for (ToolCall c : m.toolCalls()) n += tokenizer.count(c.tool()) + tokenizer.count(c.arguments());
        }
        return n;
    }
}
