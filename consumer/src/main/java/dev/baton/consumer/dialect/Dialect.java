package dev.baton.consumer.dialect;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The receiver dialects of docs/receivers.md, in the document's order: the shape of the request a kind of receiver
 * accepts. {@link #name()} is the dialect's text name ({@code openai-chat}, {@code chat-template:mistral-tools}, …).
 */
public final class Dialect {

    public static final Dialect OPENAI_CHAT = new Dialect("openai-chat");
    public static final Dialect OPENAI_RESPONSES = new Dialect("openai-responses");
    public static final Dialect ANTHROPIC_MESSAGES = new Dialect("anthropic-messages");
    public static final Dialect GEMINI = new Dialect("gemini");
    public static final Dialect CHATML_TOOLS = new Dialect("chat-template:chatml-tools");
    public static final Dialect SINGLE_SYSTEM = new Dialect("chat-template:single-system");
    public static final Dialect LLAMA3_JSON = new Dialect("chat-template:llama3-json");
    public static final Dialect MISTRAL_TOOLS = new Dialect("chat-template:mistral-tools");
    public static final Dialect ALTERNATING = new Dialect("chat-template:alternating");

    private static final List<Dialect> ALL = List.of(OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC_MESSAGES, GEMINI,
            CHATML_TOOLS, SINGLE_SYSTEM, LLAMA3_JSON, MISTRAL_TOOLS, ALTERNATING);

    private final String name;

    private Dialect(String name) {
        this.name = name;
    }

    /** The dialect's text name, as docs/receivers.md spells it. */
    public String name() {
        return name;
    }

    /** Every dialect, in the order docs/receivers.md lists them. */
    public static List<Dialect> all() {
        return ALL;
    }

    /** The dialect named {@code text}; an unknown name is an error that lists the names. */
    public static Dialect parse(String text) {
        for (Dialect d : ALL) {
            if (d.name.equals(text)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown dialect \"" + text + "\"; the dialects are: "
                + ALL.stream().map(Dialect::name).collect(Collectors.joining(", ")));
    }

    /** True for the chat-template profiles ({@code chat-template:NAME}). */
    public boolean isChatTemplate() {
        return name.startsWith("chat-template:");
    }

    @Override
    public String toString() {
        return name;
    }
}
