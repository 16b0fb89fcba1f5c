package dev.baton.engine.properties;

import dev.baton.engine.tokens.Tokenizer;
import dev.baton.engine.tokens.Tokenizers;

import java.util.Set;

/**
 * A stand-in tokenizer for the engine's tests (the real BPE encodings live a module above): a run of letters or
 * digits is one token per 4 characters, any other non-space character is a token of its own, and white space joins
 * the token after it. Like a BPE encoding it is not additive over concatenation at every cut, which is what the
 * token cap must cope with. Known as encoding {@value #NAME}.
 */
final class WordPieceTokenizer implements Tokenizer {
    static final String NAME = "test_wordpiece";
    static final Tokenizers REGISTRY = new Tokenizers() {
        private final Tokenizer instance = new WordPieceTokenizer();

        @Override
        public Tokenizer get(String encoding) {
            return NAME.equals(encoding) ? instance : null;
        }

        @Override
        public Set<String> encodings() {
            return Set.of(NAME);
        }
    };

    @Override
    public String encoding() {
        return NAME;
    }

    @Override
    public int count(String text) {
        int tokens = 0;
        int run = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isLetterOrDigit(c)) {
                run++;
                continue;
            }
            tokens += (run + 3) / 4;
            run = 0;
            if (!Character.isWhitespace(c)) tokens++;
        }
        return tokens + (run + 3) / 4;
    }
}
