package dev.baton.engine.tokens;

/**
 * Counts the tokens of a text in one named encoding (for example OpenAI's {@code o200k_base}). The engine only knows
 * this interface; the implementation (a BPE library) is injected from a module above it, so the engine keeps no
 * dependency beyond Jackson. Implementations are deterministic and thread-safe.
 */
public interface Tokenizer {
    /** The encoding's name, as a policy names it. */
    String encoding();

    /** Tokens of {@code text} encoded on its own, with no special tokens and no chat-template overhead. */
    int count(String text);
}
