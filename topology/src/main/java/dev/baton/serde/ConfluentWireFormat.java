package dev.baton.serde;

/**
 * The Confluent wire format: byte 0 is the magic byte 0, bytes 1–4 the schema id (big-endian), then the Avro binary
 * encoding of the value. Helpers shared by {@link ConfluentAvroCodec} and tests.
 */
public final class ConfluentWireFormat {
    public static final byte MAGIC_BYTE = 0;
    public static final int HEADER_SIZE = 5;

    private ConfluentWireFormat() {
    }

    /** Subject of a record value under the TopicNameStrategy: {@code {topic}-value}. */
    public static String valueSubject(String topic) {
        return topic + "-value";
    }

    /** The schema id of a wire-format value; checks the header first. */
    public static int schemaId(byte[] value) {
        checkHeader(value);
        return ((value[1] & 0xff) << 24) | ((value[2] & 0xff) << 16) | ((value[3] & 0xff) << 8) | (value[4] & 0xff);
    }

    /** Throws {@link AvroReadException} (MALFORMED) when {@code value} does not start with a wire-format header. */
    public static void checkHeader(byte[] value) {
        if (value == null) {
            throw new AvroReadException(AvroReadException.Kind.MALFORMED, "value is null (a tombstone)", null);
        }
        if (value.length < HEADER_SIZE) {
            throw new AvroReadException(AvroReadException.Kind.MALFORMED, "value has " + value.length
                    + " bytes; the Confluent wire format needs at least 5 (magic byte and schema id)", null);
        }
        if (value[0] != MAGIC_BYTE) {
            String hint = value[0] == '{' ? "; it looks like JSON (is the application configured for --format json?)" : "";
            throw new AvroReadException(AvroReadException.Kind.MALFORMED, String.format(
                    "first byte is 0x%02x, not the Confluent wire format's magic byte 0x00%s", value[0] & 0xff, hint), null);
        }
    }

    /** Writes the 5-byte header for {@code schemaId} into the start of {@code out}. */
    public static void writeHeader(byte[] out, int schemaId) {
        out[0] = MAGIC_BYTE;
        out[1] = (byte) (schemaId >>> 24);
        out[2] = (byte) (schemaId >>> 16);
        out[3] = (byte) (schemaId >>> 8);
        out[4] = (byte) schemaId;
    }
}
