package dev.baton.serde;

import dev.baton.avro.ShippedSchemas;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.AvroTypeException;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads and writes one generated Avro record type in the Confluent wire format (magic byte 0, 4-byte big-endian
 * schema id, Avro binary), with subjects named by the TopicNameStrategy ({@code {topic}-value}).
 *
 * <pre>{@code
 * var codec = new ConfluentAvroCodec<>(SchemaRegistries.forUrl("mock://test"), SessionEvent.class);
 * byte[] bytes = codec.serialize("baton.session-events", event);
 * SessionEvent back = codec.deserialize(bytes);
 * }</pre>
 *
 * <p>Writing registers the record's schema under the subject once per (topic, schema) and caches the id; what is
 * registered is the schema as shipped ({@link ShippedSchemas}: without the generated class's Java-only properties),
 * so that anyone registering the shipped files finds the same version. Reading
 * fetches the writer schema by id (cached) and resolves it against this type's schema (the reader schema), so values
 * written with an older or newer compatible schema read fine. Failures are {@link AvroReadException} with a
 * {@link AvroReadException.Kind}; an unreachable registry throws {@link SchemaRegistryUnavailableException}.
 * Thread-safe.
 */
public final class ConfluentAvroCodec<T extends SpecificRecord> {

    static {
        // the generated builders load nested record classes by name (Avro 1.12.2 checks them)
        dev.baton.avro.TrustedClasses.register();
    }

    private final SchemaRegistryClient registry;
    private final Schema readerSchema;
    private final SpecificData model;
    private final Map<String, Map<Schema, Integer>> idBySubjectAndSchema = new ConcurrentHashMap<>();
    private final Map<Integer, SpecificDatumReader<T>> readerById = new ConcurrentHashMap<>();
    private final Map<Schema, SpecificDatumWriter<T>> writerBySchema = new ConcurrentHashMap<>();
    /**
     * The writers' data model: this type's, with Avro's generated per-record coders on (records that have them, e.g.
     * the snapshot's messages, write themselves field by field instead of through the generic schema walk and union
     * resolution: the same bytes). A model of its own, so that the shared one and the readers are left as they are.
     */
    private final SpecificData writerModel;
    /** One reusable encoder per writing thread (the array keeps its size: snapshots run to hundreds of KB). */
    private final ThreadLocal<ByteArrayBinaryEncoder> encoders =
            ThreadLocal.withInitial(() -> new ByteArrayBinaryEncoder(INITIAL_BUFFER_BYTES));

    static final int INITIAL_BUFFER_BYTES = 4 * 1024;
    /** An encoder grown beyond this by an unusually large value is not kept for the next one. */
    static final int MAX_RETAINED_BUFFER_BYTES = 8 * 1024 * 1024;

    public ConfluentAvroCodec(SchemaRegistryClient registry, Class<T> type) {
        this.registry = registry;
        this.model = SpecificData.getForClass(type);
        this.readerSchema = model.getSchema(type);
        this.writerModel = new SpecificData(type.getClassLoader());
        for (org.apache.avro.Conversion<?> c : model.getConversions()) writerModel.addLogicalTypeConversion(c);
        writerModel.setCustomCoders(true);
    }

    /** The reader schema (this type's schema). */
    public Schema readerSchema() {
        return readerSchema;
    }

    /** Registers (once) and writes {@code record} for {@code topic}. */
    public byte[] serialize(String topic, T record) {
        return serialize(topic, record, null);
    }

    /**
     * {@link #serialize(String, Object)}, taking long strings' UTF-8 from {@code memo} where it holds them (the
     * content hash of this value filled it; the same bytes), or encoding them when it is null.
     */
    public byte[] serialize(String topic, T record, Utf8Memo memo) {
        if (record == null) return null;
        Schema schema = record.getSchema();
        String subject = ConfluentWireFormat.valueSubject(topic);
        int id = idBySubjectAndSchema.computeIfAbsent(subject, k -> new ConcurrentHashMap<>())
                .computeIfAbsent(schema, k -> registry.register(subject, ShippedSchemas.forSchema(schema)));
        SpecificDatumWriter<T> writer = writerBySchema.computeIfAbsent(schema,
                s -> new SpecificDatumWriter<>(s, writerModel));
        // Written straight into this thread's reusable array (no stream, no buffered encoder, no copies per value).
        ByteArrayBinaryEncoder encoder = encoders.get();
        encoder.reset();
        // Strings the content hash of this value has encoded already (SnapshotEncoder passes its memo to both).
        encoder.useMemo(memo);
        byte[] header = new byte[ConfluentWireFormat.HEADER_SIZE];
        ConfluentWireFormat.writeHeader(header, id);
        encoder.writeFixed(header, 0, header.length);
        try {
            writer.write(record, encoder);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            encoder.useMemo(null);
            if (encoder.capacity() > MAX_RETAINED_BUFFER_BYTES) encoders.remove();
        }
        byte[] value = encoder.toByteArray();
        return value;
    }

    /**
     * Reads a wire-format value.
     *
     * @throws AvroReadException                  when it cannot be read as this type (see its kind)
     * @throws SchemaRegistryUnavailableException when the writer schema cannot be fetched right now
     */
    public T deserialize(byte[] value) {
        int id = ConfluentWireFormat.schemaId(value);
        SpecificDatumReader<T> reader = readerFor(id);
        BoundedBinaryDecoder decoder = new BoundedBinaryDecoder(value, ConfluentWireFormat.HEADER_SIZE,
                value.length - ConfluentWireFormat.HEADER_SIZE);
        T record;
        try {
            record = reader.read(null, decoder);
        } catch (AvroTypeException e) {
            throw new AvroReadException(AvroReadException.Kind.UNRESOLVABLE, "cannot resolve the value (schema id " + id
                    + ") to " + readerSchema.getName() + ": " + e.getMessage(), e);
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | ClassCastException
                 | IllegalArgumentException | NegativeArraySizeException e) {
            throw new AvroReadException(AvroReadException.Kind.MALFORMED, "Avro binary (schema id " + id
                    + ") cannot be read: " + describe(e), e);
        }
        if (!decoder.isEnd()) {
            throw new AvroReadException(AvroReadException.Kind.MALFORMED, decoder.remaining()
                    + " unexpected bytes after the Avro record (schema id " + id + ")", null);
        }
        return record;
    }

    private static String describe(Exception e) {
        if (e instanceof java.io.EOFException) return "the record is truncated";
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private SpecificDatumReader<T> readerFor(int id) {
        SpecificDatumReader<T> cached = readerById.get(id);
        if (cached != null) return cached;
        Schema writer;
        try {
            writer = registry.getById(id);
        } catch (SchemaRegistryUnavailableException e) {
            throw e;
        } catch (UnknownSchemaIdException e) {
            throw new AvroReadException(AvroReadException.Kind.UNKNOWN_SCHEMA, "schema id " + id
                    + " is not known to the schema registry", e);
        } catch (SchemaRegistryException e) {
            throw new AvroReadException(AvroReadException.Kind.UNKNOWN_SCHEMA, "schema id " + id
                    + " cannot be used: " + e.getMessage(), e);
        }
        if (writer.getType() != Schema.Type.RECORD || !(writer.getFullName().equals(readerSchema.getFullName())
                || readerSchema.getAliases().contains(writer.getFullName()))) {
            throw new AvroReadException(AvroReadException.Kind.WRONG_RECORD_TYPE, "schema id " + id + " is "
                    + (writer.getType() == Schema.Type.RECORD ? "record " + writer.getFullName() : "a " + writer.getType())
                    + ", not " + readerSchema.getFullName(), null);
        }
        SpecificDatumReader<T> reader = new SpecificDatumReader<>(writer, readerSchema, model);
        SpecificDatumReader<T> previous = readerById.putIfAbsent(id, reader);
        return previous != null ? previous : reader;
    }
}
