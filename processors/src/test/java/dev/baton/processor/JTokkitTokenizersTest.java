package dev.baton.processor;

import dev.baton.engine.tokens.Tokenizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Counts against figures published with OpenAI's tiktoken (the "How to count tokens with tiktoken" cookbook compares
 * these strings across encodings), so a wrong vocabulary or a wrong encoding name would show.
 */
class JTokkitTokenizersTest {

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
            "cl100k_base|tiktoken is great!|6",
            "o200k_base|tiktoken is great!|6",
            "cl100k_base|antidisestablishmentarianism|6",
            "o200k_base|antidisestablishmentarianism|6",
            "cl100k_base|2 + 2 = 4|7",
            "o200k_base|2 + 2 = 4|7",
            "cl100k_base|お誕生日おめでとう|9",
            "o200k_base|お誕生日おめでとう|8",
    })
    void shouldCountKnownStringsAsTiktokenDoes(String encoding, String text, int tokens) {
        assertThat(JTokkitTokenizers.shared().require(encoding).count(text)).isEqualTo(tokens);
    }

    @Test
    void shouldCountSpecialTokenTextAsOrdinaryText() {
        Tokenizer t = JTokkitTokenizers.shared().require("cl100k_base");
        assertThat(t.count("<|endoftext|>")).isEqualTo(7); // not the single special token, and no exception
        assertThat(t.count("")).isZero();
    }

    @Test
    void shouldKnowOpenAiEncodingsByNameOnly() {
        assertThat(JTokkitTokenizers.shared().encodings())
                .containsExactly("cl100k_base", "o200k_base", "p50k_base", "p50k_edit", "r50k_base");
        assertThat(JTokkitTokenizers.shared().get("gpt-4o")).isNull();
        assertThatThrownBy(() -> JTokkitTokenizers.shared().require("o200k"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("o200k_base");
        assertThat(JTokkitTokenizers.shared().require("o200k_base"))
                .isSameAs(JTokkitTokenizers.shared().require("o200k_base"));
    }
}
