package dev.baton.engine.tokens;

import java.util.Set;

/**
 * The encodings a deployment can count, by name. {@link #none()} knows none: rendering with it under a policy that
 * asks for token counts or a token cap fails, which the policy decoders prevent by refusing unknown names.
 */
public interface Tokenizers {
    /** The tokenizer of {@code encoding}, or null when it is not known. */
    Tokenizer get(String encoding);

    /** Every encoding name {@link #get} answers, sorted. */
    Set<String> encodings();

    /** The tokenizer of {@code encoding}; {@link IllegalArgumentException} when it is not known. */
    default Tokenizer require(String encoding) {
        Tokenizer t = get(encoding);
        if (t == null) {
            throw new IllegalArgumentException("unknown token encoding '" + encoding + "': expected one of "
                    + String.join(", ", encodings()));
        }
        return t;
    }

    /** Knows no encoding. */
    static Tokenizers none() {
        return new Tokenizers() {
            @Override
            public Tokenizer get(String encoding) {
                return null;
            }

            @Override
            public Set<String> encodings() {
                return Set.of();
            }
        };
    }
}
