package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.Role;
import dev.baton.avro.SessionEvent;
import dev.baton.avro.ShippedSchemas;
import dev.baton.avro.Turn;
import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.HttpSchemaRegistryClient;
import dev.baton.serde.UnknownSchemaIdException;

/**
 * Baton's Avro serde against a real Confluent-compatible registry (Apicurio's ccompat API), not the
 * in-memory one: schemas register under {topic}-value, ids resolve, and the decoder reads what the
 * codec wrote.
 */
class AvroOverRealRegistryIT {

    @RegisterExtension
    static final RealSchemaRegistry registry = new RealSchemaRegistry();

    @Test
    void shouldRegisterWriteAndReadASessionEventThroughTheRealRegistry() {
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(registry.url());
        ConfluentAvroCodec<SessionEvent> codec = new ConfluentAvroCodec<>(client, SessionEvent.class);
        SessionEvent event = SessionEvent.newBuilder()
                .setEventId("e-1").setTenantId("acme").setSessionId("s-1")
                .setOccurredAt(Instant.parse("2026-11-30T09:00:00Z"))
                .setTurn(Turn.newBuilder().setSeq(0).setAgent("qwen-coder").setRole(Role.USER)
                        .setText("héllo – real registry").build())
                .build();

        byte[] wire = codec.serialize("baton.session-events", event);

        int id = ((wire[1] & 0xff) << 24) | ((wire[2] & 0xff) << 16) | ((wire[3] & 0xff) << 8) | (wire[4] & 0xff);
        assertThat(wire[0]).isZero();
        Schema registered = new HttpSchemaRegistryClient(registry.url()).getById(id);
        // the shipped schema, not the generated class's (no Java-only properties) ...
        assertThat(registered).isEqualTo(ShippedSchemas.of("SessionEvent"));
        assertThat(registered.toString()).doesNotContain("avro.java.string");
        // ... so whoever registers the released file gets the same id, not a second version
        assertThat(client.register("baton.session-events-value", new Schema.Parser().parse(released("SessionEvent-v1"))))
                .isEqualTo(id);
        assertThat(codec.deserialize(wire)).isEqualTo(event);

        Decoded decoded = SessionEventDecoder.avro(new HttpSchemaRegistryClient(registry.url()), 1 << 20)
                .decode("acme/s-1".getBytes(StandardCharsets.UTF_8), wire);
        assertThat(decoded.accepted()).as("%s %s", decoded.code(), decoded.message()).isTrue();
        assertThat(decoded.event().sessionKey()).isEqualTo("acme/s-1");
    }

    @Test
    void shouldShareOneIdForTheSameSchemaUnderTwoSubjects() {
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(registry.url());
        int first = client.register("a.context-snapshots-value", ContextSnapshot.getClassSchema());
        int second = client.register("b.context-snapshots-value", ContextSnapshot.getClassSchema());

        assertThat(second).isEqualTo(first);
        assertThat(client.getById(first)).isEqualTo(ContextSnapshot.getClassSchema());
    }

    private static String released(String name) {
        try (var in = AvroOverRealRegistryIT.class.getResourceAsStream("/avro/released/" + name + ".avsc")) {
            return new String(java.util.Objects.requireNonNull(in, name).readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void shouldReportAnUnknownIdAsUnknown() {
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(registry.url());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.getById(987_654))
                .isInstanceOf(UnknownSchemaIdException.class);
    }

}
