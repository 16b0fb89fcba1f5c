package dev.baton.engine.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SessionKeyTest {

    @Test
    void shouldFormatAsTenantSlashSessionAndTheSnapshotIdWithTheHandoff() {
        SessionKey key = SessionKey.of("acme-robotics", "sess.0193:a_b");
        assertThat(key).hasToString("acme-robotics/sess.0193:a_b");
        assertThat(key.snapshotId("ho-1")).isEqualTo("acme-robotics/sess.0193:a_b/ho-1");
    }

    @Test
    void shouldParseWhatItFormats() {
        SessionKey key = SessionKey.of("t1", "s-1");
        assertThat(SessionKey.parse(key.toString())).contains(key);
        assertThat(SessionKey.parse("t1/s-1").orElseThrow().tenantId()).isEqualTo("t1");
        assertThat(SessionKey.parse("t1/s-1").orElseThrow().sessionId()).isEqualTo("s-1");
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "t1", "/s1", "t1/", "/", "t1/s1/h1", "t 1/s1", "t1/s1 ", "t1//s1", "tenant/é"})
    void shouldNotParseAnythingButTwoContractIdentifiers(String text) {
        assertThat(SessionKey.parse(text)).isEmpty();
    }

    @Test
    void shouldCheckTheLengthOfEachId() {
        String longest = "x".repeat(128);
        assertThat(SessionKey.parse(longest + "/" + longest)).contains(SessionKey.of(longest, longest));
        assertThat(SessionKey.parse(longest + "x/s1")).isEmpty();
        assertThat(SessionKey.parse("t1/" + longest + "x")).isEmpty();
    }

    @Test
    void shouldRefuseToBuildAKeyOfInvalidIds() {
        assertThatThrownBy(() -> SessionKey.of("a/b", "c")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a/b'");
        assertThatThrownBy(() -> SessionKey.of("t1", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SessionKey.of("", "s1")).isInstanceOf(IllegalArgumentException.class);
        assertThat(SessionKey.ifValid("a/b", "c")).isEmpty();
        assertThat(SessionKey.ifValid("t1", "s1")).contains(SessionKey.of("t1", "s1"));
    }

    @Test
    void shouldFormatAnyTwoValuesTheWayAProducerSendsThem() {
        // what a replay sends for a record it has not checked; the topology dead-letters it with INVALID_ID
        assertThat(SessionKey.format("a b", "")).isEqualTo("a b/");
        assertThat(SessionKey.format("t1", "s1")).isEqualTo(SessionKey.of("t1", "s1").toString());
    }

    @Test
    void shouldAcceptExactlyTheContractsIdentifierCharacters() {
        for (char c = 0; c < 256; c++) {
            boolean contract = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || ".-_:".indexOf(c) >= 0;
            assertThat(Identifiers.isValidId("a" + c)).as("character %d", (int) c).isEqualTo(contract);
        }
        assertThat(Identifiers.isValidId("")).isFalse();
        assertThat(Identifiers.isValidId(null)).isFalse();
        assertThat(Identifiers.isValidId("x".repeat(128))).isTrue();
        assertThat(Identifiers.isValidId("x".repeat(129))).isFalse();
    }
}
