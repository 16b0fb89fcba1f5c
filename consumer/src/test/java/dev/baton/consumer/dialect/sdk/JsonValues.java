package dev.baton.consumer.dialect.sdk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Comparator;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * JSON compared as values, the way the kits compare requests (docs/receivers.md, "Arguments"): numbers by their
 * decimal value ({@code 1e3}, {@code 1000} and {@code 1000.0} are one number; no digit of a long literal is rounded
 * away by parsing), everything else exactly.
 */
final class JsonValues {

    /** Reads numbers as BigDecimal/BigInteger, so a literal keeps every digit it was written with. */
    static final ObjectMapper EXACT = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();

    /** Numbers equal when their decimal values are; other nodes by their natural equality. */
    static final Comparator<JsonNode> NUMBERS_BY_VALUE = (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
    };

    private JsonValues() {
    }

    static JsonNode parse(String text) {
        try {
            return EXACT.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean sameValue(JsonNode a, JsonNode b) {
        return a.equals(NUMBERS_BY_VALUE, b);
    }
}
