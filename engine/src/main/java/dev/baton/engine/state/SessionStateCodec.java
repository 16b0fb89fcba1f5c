package dev.baton.engine.state;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Serializes {@link SessionState} for the state store: one version byte, then the state's fields as compact JSON
 * (Jackson). Unknown fields are ignored on read, so a newer Baton can add fields and still read older state; a
 * different version byte is refused loudly rather than misread.
 *
 * <p>Why JSON and not Avro here: the state is internal (never read by other programs), changes with the engine, and
 * is dominated by text; Avro would add a hand-maintained mapping for a few percent of size. The snapshot and event
 * schemas, which other programs read, are Avro.
 */
public final class SessionStateCodec {
    public static final byte VERSION = 1;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .visibility(PropertyAccessor.ALL, JsonAutoDetect.Visibility.NONE)
            .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY)
            .visibility(PropertyAccessor.CREATOR, JsonAutoDetect.Visibility.ANY)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private SessionStateCodec() {
    }

    public static byte[] encode(SessionState state) {
        try {
            byte[] json = MAPPER.writeValueAsBytes(state);
            byte[] out = new byte[json.length + 1];
            out[0] = VERSION;
            System.arraycopy(json, 0, out, 1, json.length);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode session state", e);
        }
    }

    public static SessionState decode(byte[] bytes) {
        if (bytes == null || bytes.length == 0) throw new IllegalArgumentException("empty session state");
        if (bytes[0] != VERSION) {
            throw new IllegalStateException("session state version " + bytes[0] + " is not supported (expected "
                    + VERSION + "); reset the application's state or run a matching Baton");
        }
        try {
            return MAPPER.readValue(bytes, 1, bytes.length - 1, SessionState.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot decode session state", e);
        }
    }
}
