package dev.baton.processor;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import dev.baton.engine.tokens.Tokenizer;
import dev.baton.engine.tokens.Tokenizers;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine's {@link Tokenizers} backed by JTokkit ({@code com.knuddels:jtokkit}), a pure-Java implementation of
 * OpenAI's byte-pair encodings whose vocabularies ship inside its jar (nothing is downloaded at run time). Knows
 * {@code o200k_base}, {@code cl100k_base}, {@code p50k_base}, {@code p50k_edit} and {@code r50k_base}.
 *
 * <p>Encodings load lazily, on first use of each (o200k_base takes a few hundred milliseconds and some 30 MB of
 * heap), so a deployment whose tenants never ask for tokens never loads one. Text is encoded as ordinary text: a
 * special-token string such as {@code <|endoftext|>} inside a message is counted as the characters it is, which is
 * how a chat endpoint sees user content. Thread-safe.
 */
public final class JTokkitTokenizers implements Tokenizers {
    private static final JTokkitTokenizers SHARED = new JTokkitTokenizers();

    private final EncodingRegistry registry = Encodings.newLazyEncodingRegistry();
    private final Map<String, Tokenizer> loaded = new ConcurrentHashMap<>();
    private final Set<String> names;

    private JTokkitTokenizers() {
        Set<String> n = new TreeSet<>();
        for (EncodingType t : EncodingType.values()) n.add(t.getName());
        names = Set.copyOf(n);
    }

    /** One instance per JVM: encodings are large and immutable. */
    public static JTokkitTokenizers shared() {
        return SHARED;
    }

    @Override
    public Tokenizer get(String encoding) {
        if (encoding == null || !names.contains(encoding)) return null;
        return loaded.computeIfAbsent(encoding, name -> {
            Encoding e = registry.getEncoding(EncodingType.fromName(name).orElseThrow());
            return new Tokenizer() {
                @Override
                public String encoding() {
                    return name;
                }

                @Override
                public int count(String text) {
                    return text.isEmpty() ? 0 : e.countTokensOrdinary(text);
                }
            };
        });
    }

    @Override
    public Set<String> encodings() {
        return new TreeSet<>(names);
    }
}
