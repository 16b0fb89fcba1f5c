package dev.baton.ingest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.SessionEvent;
import dev.baton.deadletter.ErrorCode;
import dev.baton.serde.ConfluentWireFormat;
import dev.baton.serde.MockSchemaRegistry;
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
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import static dev.baton.ingest.SessionEventFixtures.JSON;
import static dev.baton.ingest.SessionEventFixtures.KEY;
import static dev.baton.ingest.SessionEventFixtures.TOPIC;
import static dev.baton.ingest.SessionEventFixtures.userTurn;
import static org.assertj.core.api.Assertions.assertThat;

/** Rejections only the Avro wire format can produce. */
class AvroSessionEventDecoderTest {
    private final String scope = "avro-decoder-test-" + System.nanoTime();
    private final MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);
    private final SessionEventDecoder decoder = SessionEventDecoder.avro(registry, SessionEventDecoder.DEFAULT_MAX_RECORD_BYTES);

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
    }

    private byte[] good() {
        return SessionEventFixtures.Format.AVRO.encode(userTurn(), registry);
    }

    @Test
    void shouldRejectBadMagicTruncationAndJsonAsMalformed() {
        byte[] badMagic = good();
        badMagic[0] = 2;
        byte[] truncated = Arrays.copyOf(good(), good().length - 2);
        byte[] json = userTurn().toString().getBytes();

        for (byte[] bad : List.of(badMagic, truncated, json, new byte[]{0, 0, 0})) {
            Decoded d = decoder.decode(KEY, bad);
            assertThat(d.code()).as(d.message()).isEqualTo(ErrorCode.MALFORMED);
        }
        assertThat(decoder.decode(KEY, json).message()).contains("looks like JSON");
    }

    @Test
    void shouldRejectAnUnknownSchemaIdAndAnotherRecordType() {
        byte[] unknown = good();
        unknown[4] = 77;
        byte[] other = good();
        other[4] = (byte) registry.register("other-value", ContextSnapshot.getClassSchema());

        Decoded unknownId = decoder.decode(KEY, unknown);
        Decoded otherType = decoder.decode(KEY, other);

        assertThat(unknownId.code()).isEqualTo(ErrorCode.UNKNOWN_SCHEMA);
        assertThat(unknownId.message()).contains("77");
        assertThat(otherType.code()).isEqualTo(ErrorCode.UNKNOWN_SCHEMA);
        assertThat(otherType.message()).contains("ContextSnapshot");
    }

    @Test
    void shouldRejectAnEnumSymbolTheReaderDoesNotKnowAsInvalidField() throws IOException {
        Schema writer = writerSchema(turn -> {
            ObjectNode role = (ObjectNode) field(turn, "role").get("type");
            ((ArrayNode) role.get("symbols")).add("ROBOT");
        });
        GenericRecord event = envelope(writer);
        GenericRecord turn = new GenericData.Record(writer.getField("turn").schema().getTypes().get(1));
        turn.put("seq", 0L);
        turn.put("agent", "a");
        turn.put("role", new GenericData.EnumSymbol(turn.getSchema().getField("role").schema(), "ROBOT"));
        turn.put("text", "hi");
        turn.put("trail", List.of());
        turn.put("tool_calls", List.of());
        event.put("turn", turn);

        Decoded d = decoder.decode(KEY, frame(writer, event));

        assertThat(d.code()).as(d.message()).isEqualTo(ErrorCode.INVALID_FIELD);
        assertThat(d.message()).contains("ROBOT");
    }

    @Test
    void shouldRejectAWriterSchemaMissingARequiredFieldAsInvalidField() throws IOException {
        Schema writer = writerSchema(turn -> {
            ArrayNode fields = (ArrayNode) turn.get("fields");
            for (int i = 0; i < fields.size(); i++) if (fields.get(i).get("name").asText().equals("text")) fields.remove(i);
        });
        GenericRecord event = envelope(writer);
        GenericRecord turn = new GenericData.Record(writer.getField("turn").schema().getTypes().get(1));
        turn.put("seq", 0L);
        turn.put("agent", "a");
        turn.put("role", new GenericData.EnumSymbol(turn.getSchema().getField("role").schema(), "USER"));
        turn.put("trail", List.of());
        turn.put("tool_calls", List.of());
        event.put("turn", turn);

        Decoded d = decoder.decode(KEY, frame(writer, event));

        assertThat(d.code()).as(d.message()).isEqualTo(ErrorCode.INVALID_FIELD);
        assertThat(d.message()).contains("text");
    }

    private static ObjectNode field(ObjectNode record, String name) {
        for (var f : record.get("fields")) if (f.get("name").asText().equals(name)) return (ObjectNode) f;
        throw new IllegalArgumentException(name);
    }

    /** SessionEvent's schema with its Turn record changed. */
    private static Schema writerSchema(Consumer<ObjectNode> changeTurn) throws IOException {
        ObjectNode schema = (ObjectNode) JSON.readTree(SessionEvent.getClassSchema().toString());
        ObjectNode turn = (ObjectNode) field(schema, "turn").get("type").get(1);
        changeTurn.accept(turn);
        return new Schema.Parser().parse(schema.toString());
    }

    private static GenericRecord envelope(Schema writer) {
        GenericRecord event = new GenericData.Record(writer);
        event.put("event_id", "e1");
        event.put("tenant_id", "t1");
        event.put("session_id", "s1");
        event.put("occurred_at", 1L);
        return event;
    }

    private byte[] frame(Schema writer, GenericRecord record) throws IOException {
        int id = registry.register(TOPIC + "-value", writer);
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
