package dev.baton.serde;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.Role;
import dev.baton.avro.SessionEvent;
import dev.baton.avro.ShippedSchemas;
import dev.baton.avro.ToolStep;
import dev.baton.avro.StepStatus;
import dev.baton.avro.Turn;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfluentAvroCodecTest {
    private static final String TOPIC = "baton.session-events";
    private final String scope = "codec-test-" + System.nanoTime();
    private final MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);
    private final ConfluentAvroCodec<SessionEvent> codec = new ConfluentAvroCodec<>(registry, SessionEvent.class);

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
    }

    static SessionEvent turnEvent() {
        Turn turn = Turn.newBuilder().setSeq(3).setAgent("claude").setRole(Role.ASSISTANT).setText("done é ✓")
                .setTrail(List.of(new ToolStep("c1", "grep", "{\"q\":\"x\",\"n\":1.0}", "found", StepStatus.OK)))
                .build();
        return SessionEvent.newBuilder().setEventId("e1").setTenantId("t1").setSessionId("s1")
                .setOccurredAt(Instant.ofEpochMilli(1_700_000_000_123L)).setTurn(turn).build();
    }

    @Test
    void shouldWriteTheConfluentWireFormatAndReadItBack() {
        SessionEvent event = turnEvent();
        byte[] bytes = codec.serialize(TOPIC, event);

        int id = registry.versions(TOPIC + "-value").get(0);
        assertThat(bytes[0]).isEqualTo((byte) 0);
        assertThat(Arrays.copyOfRange(bytes, 1, 5)).containsExactly(0, 0, 0, id);
        assertThat(ConfluentWireFormat.schemaId(bytes)).isEqualTo(id);
        assertThat(codec.deserialize(bytes)).isEqualTo(event);
    }

    @Test
    void shouldRegisterTheWriterSchemaOnceUnderTheTopicValueSubject() {
        ConfluentAvroCodec<SessionEvent> other = new ConfluentAvroCodec<>(registry, SessionEvent.class);
        codec.serialize(TOPIC, turnEvent());
        codec.serialize(TOPIC, turnEvent());
        other.serialize(TOPIC, turnEvent());

        assertThat(registry.subjects()).containsExactly(TOPIC + "-value");
        assertThat(registry.versions(TOPIC + "-value")).hasSize(1);
    }

    @Test
    void shouldRegisterTheShippedSchemaTextNotTheGeneratedClassesJavaProperties() {
        byte[] bytes = codec.serialize(TOPIC, turnEvent());
        Schema registered = registry.getById(ConfluentWireFormat.schemaId(bytes));
        // anyone who registers the shipped SessionEvent.avsc (parsed with Target and ToolCall) gets the same text
        assertThat(registered.toString()).isEqualTo(ShippedSchemas.of("SessionEvent").toString())
                .doesNotContain("avro.java.string");
        // and a record written with it reads back as the generated class (Java strings)
        SessionEvent back = codec.deserialize(bytes);
        assertThat(back.getTurn().getTrail().get(0).getResult()).isInstanceOf(String.class).isEqualTo("found");
    }

    @Test
    void shouldResolveANewerWriterSchemaWithAnExtraFieldAgainstTheReaderSchema() throws IOException {
        ObjectNode json = (ObjectNode) new ObjectMapper().readTree(SessionEvent.getClassSchema().toString());
        ObjectNode extra = ((ArrayNode) json.get("fields")).addObject();
        extra.put("name", "trace_id").put("type", "string").put("default", "none");
        Schema writer = new Schema.Parser().parse(json.toString());

        GenericRecord record = new GenericData.Record(writer);
        record.put("event_id", "e9");
        record.put("tenant_id", "t1");
        record.put("session_id", "s1");
        record.put("occurred_at", 5L);
        GenericRecord closed = new GenericData.Record(writer.getField("closed").schema().getTypes().get(1));
        closed.put("reason", "bye");
        record.put("closed", closed);
        record.put("trace_id", "abc-123");

        SessionEvent read = codec.deserialize(frame(registry.register(TOPIC + "-value", writer), writer, record));

        assertThat(read.getEventId()).isEqualTo("e9");
        assertThat(read.getOccurredAt()).isEqualTo(Instant.ofEpochMilli(5));
        assertThat(read.getClosed().getReason()).isEqualTo("bye");
        assertThat(read.getTurn()).isNull();
    }

    @Test
    void shouldSkipWriterOnlyArraysMapsAndBytes() throws IOException {
        ObjectNode json = (ObjectNode) new ObjectMapper().readTree(SessionEvent.getClassSchema().toString());
        ArrayNode fields = (ArrayNode) json.get("fields");
        ObjectMapper m = new ObjectMapper();
        fields.insert(1, m.readTree("{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]}"));
        fields.insert(2, m.readTree("{\"name\":\"meta\",\"type\":{\"type\":\"map\",\"values\":\"long\"},\"default\":{}}"));
        fields.insert(3, m.readTree("{\"name\":\"blob\",\"type\":\"bytes\",\"default\":\"\"}"));
        Schema writer = new Schema.Parser().parse(json.toString());
        GenericRecord record = new GenericData.Record(writer);
        record.put("event_id", "e1");
        record.put("tags", List.of("a", "bb", "ccc"));
        record.put("meta", java.util.Map.of("x", 1L, "y", 2L));
        record.put("blob", java.nio.ByteBuffer.wrap(new byte[]{1, 2, 3}));
        record.put("tenant_id", "t1");
        record.put("session_id", "s1");
        record.put("occurred_at", 5L);
        record.put("closed", new GenericData.Record(writer.getField("closed").schema().getTypes().get(1)));

        SessionEvent read = codec.deserialize(frame(registry.register(TOPIC + "-value", writer), writer, record));

        assertThat(read.getEventId()).isEqualTo("e1");
        assertThat(read.getTenantId()).isEqualTo("t1");
        assertThat(read.getClosed()).isNotNull();
    }

    @Test
    void shouldFillDefaultsWhenAnOlderWriterSchemaLacksAnOptionalField() throws IOException {
        ObjectNode json = (ObjectNode) new ObjectMapper().readTree(SessionEvent.getClassSchema().toString());
        ArrayNode fields = (ArrayNode) json.get("fields");
        fields.remove(6); // "closed"
        Schema writer = new Schema.Parser().parse(json.toString());
        GenericRecord record = new GenericData.Record(writer);
        record.put("event_id", "e1");
        record.put("tenant_id", "t1");
        record.put("session_id", "s1");
        record.put("occurred_at", 5L);

        SessionEvent read = codec.deserialize(frame(registry.register(TOPIC + "-value", writer), writer, record));

        assertThat(read.getClosed()).isNull();
        assertThat(read.getEventId()).isEqualTo("e1");
    }

    @Test
    void shouldReportAnUnknownSchemaId() {
        byte[] bytes = codec.serialize(TOPIC, turnEvent());
        bytes[4] = 99;

        assertThatThrownBy(() -> codec.deserialize(bytes)).isInstanceOfSatisfying(AvroReadException.class,
                e -> assertThat(e.kind()).isEqualTo(AvroReadException.Kind.UNKNOWN_SCHEMA));
    }

    @Test
    void shouldReportAWriterSchemaOfAnotherRecordType() {
        int id = registry.register("x-value", ContextSnapshot.getClassSchema());
        byte[] bytes = codec.serialize(TOPIC, turnEvent());
        bytes[4] = (byte) id;

        assertThatThrownBy(() -> codec.deserialize(bytes)).isInstanceOfSatisfying(AvroReadException.class,
                e -> assertThat(e.kind()).isEqualTo(AvroReadException.Kind.WRONG_RECORD_TYPE));
    }

    @Test
    void shouldReportBadMagicTruncationAndTrailingBytesAsMalformed() {
        byte[] good = codec.serialize(TOPIC, turnEvent());
        byte[] badMagic = good.clone();
        badMagic[0] = 1;
        byte[] truncated = Arrays.copyOf(good, good.length - 3);
        byte[] trailing = Arrays.copyOf(good, good.length + 1);

        for (byte[] bad : List.of(badMagic, truncated, trailing, new byte[]{0, 0})) {
            assertThatThrownBy(() -> codec.deserialize(bad)).isInstanceOfSatisfying(AvroReadException.class,
                    e -> assertThat(e.kind()).isEqualTo(AvroReadException.Kind.MALFORMED));
        }
    }

    @Test
    void shouldRejectAHugeDeclaredLengthWithoutAllocatingIt() {
        int id = registry.register(TOPIC + "-value", SessionEvent.getClassSchema());
        // header, then event_id with a declared length of about 2^31 bytes (zig-zag varint)
        byte[] bytes = {0, 0, 0, 0, (byte) id, (byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 'a'};

        assertThatThrownBy(() -> codec.deserialize(bytes)).isInstanceOfSatisfying(AvroReadException.class,
                e -> assertThat(e).hasMessageContaining("exceeds"));
    }

    @Test
    void shouldRejectInvalidUtf8InAString() {
        int id = registry.register(TOPIC + "-value", SessionEvent.getClassSchema());
        byte[] bytes = {0, 0, 0, 0, (byte) id, 4, (byte) 0xc3, (byte) 0x28};

        assertThatThrownBy(() -> codec.deserialize(bytes)).isInstanceOfSatisfying(AvroReadException.class,
                e -> assertThat(e).hasMessageContaining("UTF-8"));
    }

    static byte[] frame(int id, Schema writer, GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] header = new byte[5];
        ConfluentWireFormat.writeHeader(header, id);
        out.write(header);
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(writer).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
