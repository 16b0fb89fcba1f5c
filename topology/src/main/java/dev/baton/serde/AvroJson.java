package dev.baton.serde;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import dev.baton.engine.model.CompactJson;
import org.apache.avro.Conversion;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The JSON form of Baton's Avro records (docs/contract.md, "JSONL files"), driven by the Avro schema: one JSON object
 * per record with the Avro field names (snake_case), in schema order when written.
 *
 * <ul>
 *   <li>Optional fields ({@code ["null", T]}) are bare values or {@code null} (no Avro-JSON {@code {"string": ...}}
 *       wrapping); on input an absent field takes its schema default, an absent field without default is an error.</li>
 *   <li>Enums are their symbols; input also accepts the symbol in lower case ({@code "assistant"}).</li>
 *   <li>{@code timestamp-millis} fields ({@code occurred_at}) are ISO-8601 instants ({@code 2026-01-31T12:00:00.250Z});
 *       input also accepts an offset ({@code +02:00}) or a JSON integer of epoch milliseconds.</li>
 *   <li>String fields named {@code arguments} hold JSON object text and are written as the JSON object itself. On input
 *       a JSON object is taken as the exact text received (key order, number literals such as {@code 1.0} or
 *       {@code 1e5}, escapes and non-ASCII characters untouched); a string holding the object is accepted too. Any
 *       other JSON value is passed on as its text, for the caller to reject.</li>
 *   <li>Fields the schema does not know are ignored on input (like Avro schema resolution does); a field repeated in
 *       one object, trailing content after the object, or bytes that are not UTF-8 are malformed.</li>
 * </ul>
 *
 * <pre>{@code
 * SessionEvent event = AvroJson.read(bytes, SessionEvent.class);   // JsonReadException when it cannot
 * byte[] line = AvroJson.write(snapshotRecord);                    // one line, no trailing new line
 * }</pre>
 * Output is deterministic: the same record always gives the same bytes. Thread-safe.
 */
public final class AvroJson {

    static {
        // the generated builders load nested record classes by name (Avro 1.12.2 checks them)
        dev.baton.avro.TrustedClasses.register();
    }

    private static final JsonFactory FACTORY = JsonFactory.builder().build();
    private static final String RAW_OBJECT_FIELD = "arguments";

    private AvroJson() {
    }

    // ------------------------------------------------------------------------------------------------ reading

    /** Reads one record of the generated class {@code type} from UTF-8 JSON bytes. */
    public static <T extends SpecificRecord> T read(byte[] utf8, Class<T> type) {
        if (utf8 == null) throw new JsonReadException(JsonReadException.Kind.MALFORMED, null, "value is null (a tombstone)", null);
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(utf8)).toString();
        } catch (CharacterCodingException e) {
            throw new JsonReadException(JsonReadException.Kind.MALFORMED, null, "value is not valid UTF-8", e);
        }
        return read(text, type);
    }

    /** Reads one record of the generated class {@code type} from JSON text. */
    @SuppressWarnings("unchecked")
    public static <T extends SpecificRecord> T read(String text, Class<T> type) {
        SpecificData model = SpecificData.getForClass(type);
        return (T) new Reader(text, model).readTop(model.getSchema(type));
    }

    private static final class Reader {
        final String text;
        final SpecificData model;
        JsonParser p;

        Reader(String text, SpecificData model) {
            // a leading byte order mark is not part of the JSON text
            this.text = text.startsWith("\uFEFF") ? text.substring(1) : text;
            this.model = model;
        }

        Object readTop(Schema schema) {
            try (JsonParser parser = FACTORY.createParser(text)) {
                p = parser;
                JsonToken first = p.nextToken();
                if (first == null) throw malformed("value is empty, expected one JSON object");
                if (first != JsonToken.START_OBJECT) {
                    throw malformed("value is not a JSON object (starts with " + describe(first) + ")");
                }
                Object record;
                try {
                    record = readRecord(schema, "");
                } catch (JsonReadException e) {
                    // a field error counts only when the whole value is readable JSON: syntax errors win
                    if (e.kind() == JsonReadException.Kind.INVALID_FIELD) drainToEnd();
                    throw e;
                }
                if (p.nextToken() != null) throw malformed("unexpected content after the JSON object at " + where());
                return record;
            } catch (StreamConstraintsException e) {
                throw malformed("JSON exceeds a parser limit: " + e.getOriginalMessage());
            } catch (JsonProcessingException e) {
                JsonLocation loc = e.getLocation();
                throw new JsonReadException(JsonReadException.Kind.MALFORMED, null, "invalid JSON: "
                        + clip(e.getOriginalMessage()) + (loc == null ? "" : " at line " + loc.getLineNr()
                        + " column " + loc.getColumnNr()), e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Reads the rest of the value, only to find syntax errors and trailing content. */
        void drainToEnd() throws IOException {
            while (!p.getParsingContext().inRoot()) {
                if (p.nextToken() == null) throw malformed("unexpected end of input");
            }
            if (p.nextToken() != null) throw malformed("unexpected content after the JSON object at " + where());
        }

        String where() {
            JsonLocation loc = p.currentTokenLocation();
            return "line " + loc.getLineNr() + " column " + loc.getColumnNr();
        }

        JsonReadException malformed(String message) {
            return new JsonReadException(JsonReadException.Kind.MALFORMED, null, message, null);
        }

        JsonReadException invalid(String path, String message) {
            return new JsonReadException(JsonReadException.Kind.INVALID_FIELD, path, path + ": " + message, null);
        }

        /** Current token is START_OBJECT. */
        Object readRecord(Schema schema, String prefix) throws IOException {
            List<Schema.Field> fields = schema.getFields();
            Object[] values = new Object[fields.size()];
            boolean[] present = new boolean[fields.size()];
            Set<String> seen = new HashSet<>();
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                String path = prefix + name;
                if (!seen.add(name)) throw malformed("field " + path + " appears twice");
                p.nextToken();
                Schema.Field field = schema.getField(name);
                if (field == null) {
                    p.skipChildren(); // unknown fields are ignored, like writer-only fields in Avro resolution
                    continue;
                }
                values[field.pos()] = readValue(field.schema(), path, name);
                present[field.pos()] = true;
            }
            if (t != JsonToken.END_OBJECT) throw malformed("unexpected " + describe(t) + " at " + where());
            IndexedRecord record = (IndexedRecord) model.newRecord(null, schema);
            for (Schema.Field field : fields) {
                Object value;
                if (present[field.pos()]) {
                    value = values[field.pos()];
                } else if (field.hasDefaultValue()) {
                    value = model.deepCopy(field.schema(), model.getDefaultValue(field));
                } else {
                    throw invalid(prefix + field.name(), "missing required field");
                }
                record.put(field.pos(), value);
            }
            return record;
        }

        Object readValue(Schema schema, String path, String fieldName) throws IOException {
            JsonToken t = p.currentToken();
            if (schema.getType() == Schema.Type.UNION) {
                if (t == JsonToken.VALUE_NULL && schema.getIndexNamed("null") != null) return null;
                Schema branch = null;
                for (Schema s : schema.getTypes()) {
                    if (s.getType() == Schema.Type.NULL) continue;
                    if (branch != null) throw new IllegalStateException("unions of several non-null types are not supported: " + schema);
                    branch = s;
                }
                if (branch == null) throw invalid(path, "must be null");
                return readValue(branch, path, fieldName);
            }
            if (t == JsonToken.VALUE_NULL && schema.getType() != Schema.Type.NULL) throw invalid(path, "must not be null");
            switch (schema.getType()) {
                case NULL:
                    if (t != JsonToken.VALUE_NULL) throw invalid(path, "must be null");
                    return null;
                case STRING:
                    if (RAW_OBJECT_FIELD.equals(fieldName) && t != JsonToken.VALUE_STRING) return rawText(t);
                    if (t != JsonToken.VALUE_STRING) throw invalid(path, "expected a string, found " + describe(t));
                    return p.getText();
                case BOOLEAN:
                    if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) throw invalid(path, "expected true or false, found " + describe(t));
                    return t == JsonToken.VALUE_TRUE;
                case INT:
                    if (t != JsonToken.VALUE_NUMBER_INT) throw invalid(path, "expected an integer, found " + describe(t));
                    if (p.getNumberType() != JsonParser.NumberType.INT) throw invalid(path, "integer " + clip(p.getText()) + " is out of range");
                    return p.getIntValue();
                case LONG:
                    return readLong(schema, path, t);
                case FLOAT:
                case DOUBLE:
                    if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) throw invalid(path, "expected a number, found " + describe(t));
                    return schema.getType() == Schema.Type.FLOAT ? (Object) p.getFloatValue() : (Object) p.getDoubleValue();
                case ENUM:
                    return readEnum(schema, path, t);
                case ARRAY: {
                    if (t != JsonToken.START_ARRAY) throw invalid(path, "expected an array, found " + describe(t));
                    List<Object> items = new ArrayList<>();
                    int i = 0;
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        items.add(readValue(schema.getElementType(), path + "[" + i++ + "]", null));
                    }
                    return items;
                }
                case MAP: {
                    if (t != JsonToken.START_OBJECT) throw invalid(path, "expected an object, found " + describe(t));
                    Map<String, Object> map = new LinkedHashMap<>();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String key = p.currentName();
                        p.nextToken();
                        map.put(key, readValue(schema.getValueType(), path + "." + key, null));
                    }
                    return map;
                }
                case RECORD:
                    if (t != JsonToken.START_OBJECT) throw invalid(path, "expected an object, found " + describe(t));
                    return readRecord(schema, path + ".");
                default:
                    throw invalid(path, "Avro type " + schema.getType() + " has no JSON form in Baton");
            }
        }

        Object readLong(Schema schema, String path, JsonToken t) throws IOException {
            LogicalType logical = schema.getLogicalType();
            boolean timestamp = logical != null && LogicalTypes.timestampMillis().getName().equals(logical.getName());
            long value;
            if (timestamp && t == JsonToken.VALUE_STRING) {
                String s = p.getText();
                try {
                    value = Instant.parse(s).toEpochMilli();
                } catch (DateTimeParseException | ArithmeticException e) {
                    throw invalid(path, "'" + clip(s) + "' is not an ISO-8601 instant such as 2026-01-31T12:00:00Z");
                }
            } else if (t == JsonToken.VALUE_NUMBER_INT) {
                JsonParser.NumberType nt = p.getNumberType();
                if (nt != JsonParser.NumberType.INT && nt != JsonParser.NumberType.LONG) {
                    throw invalid(path, "integer " + clip(p.getText()) + " is out of range");
                }
                value = p.getLongValue();
            } else {
                throw invalid(path, (timestamp ? "expected an ISO-8601 instant, found " : "expected an integer, found ") + describe(t));
            }
            if (logical != null) {
                Conversion<?> conversion = model.getConversionFor(logical);
                if (conversion != null) return conversion.fromLong(value, schema, logical);
            }
            return value;
        }

        Object readEnum(Schema schema, String path, JsonToken t) throws IOException {
            if (t != JsonToken.VALUE_STRING) throw invalid(path, "expected one of " + schema.getEnumSymbols() + ", found " + describe(t));
            String s = p.getText();
            String symbol = null;
            for (String candidate : schema.getEnumSymbols()) {
                if (candidate.equals(s) || candidate.toLowerCase(java.util.Locale.ROOT).equals(s)) {
                    symbol = candidate;
                    break;
                }
            }
            if (symbol == null) symbol = schema.getEnumDefault(); // like Avro resolution: the reader's default, if any
            if (symbol == null) {
                throw invalid(path, "unknown symbol '" + clip(s) + "', expected one of " + schema.getEnumSymbols());
            }
            return model.createEnum(symbol, schema);
        }

        /** The exact text of the current value (object, array or scalar) as received. */
        String rawText(JsonToken t) throws IOException {
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                int start = Math.toIntExact(p.currentTokenLocation().getCharOffset());
                p.skipChildren();
                int end = Math.toIntExact(p.currentTokenLocation().getCharOffset()) + 1;
                return text.substring(start, end);
            }
            return p.getText();
        }

        static String describe(JsonToken t) {
            if (t == null) return "end of input";
            return switch (t) {
                case START_OBJECT -> "an object";
                case START_ARRAY -> "an array";
                case VALUE_STRING -> "a string";
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
                case VALUE_TRUE, VALUE_FALSE -> "a boolean";
                case VALUE_NULL -> "null";
                default -> t.asString() == null ? t.name() : "'" + t.asString() + "'";
            };
        }
    }

    static String clip(String s) {
        if (s == null) return "";
        return s.length() <= 100 ? s : s.substring(0, 100) + "… (" + s.length() + " characters)";
    }

    // ------------------------------------------------------------------------------------------------ writing

    /** The record as one line of UTF-8 JSON (no trailing new line). */
    public static byte[] write(IndexedRecord record) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            writeValue(g, record, record.getSchema(), null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The record as one line of JSON text. */
    public static String writeString(IndexedRecord record) {
        return new String(write(record), StandardCharsets.UTF_8);
    }

    private static void writeValue(JsonGenerator g, Object value, Schema schema, String fieldName) throws IOException {
        switch (schema.getType()) {
            case UNION -> {
                if (value == null) {
                    g.writeNull();
                    return;
                }
                int branch = SpecificData.get().resolveUnion(schema, value instanceof Instant i ? i.toEpochMilli() : value);
                writeValue(g, value, schema.getTypes().get(branch), fieldName);
            }
            case NULL -> g.writeNull();
            case RECORD -> {
                IndexedRecord record = (IndexedRecord) value;
                g.writeStartObject();
                for (Schema.Field field : schema.getFields()) {
                    g.writeFieldName(field.name());
                    Object v = record.get(field.pos());
                    if (v == null && field.schema().getType() != Schema.Type.UNION && field.schema().getType() != Schema.Type.NULL) {
                        throw new IllegalArgumentException("required field " + field.name() + " of " + schema.getName() + " is null");
                    }
                    writeValue(g, v, field.schema(), field.name());
                }
                g.writeEndObject();
            }
            case STRING -> {
                String s = value.toString();
                if (RAW_OBJECT_FIELD.equals(fieldName)) {
                    String compact = compactOrNull(s);
                    if (compact != null) {
                        g.writeRawValue(compact);
                        return;
                    }
                }
                g.writeString(s);
            }
            case LONG -> {
                LogicalType logical = schema.getLogicalType();
                long millis = value instanceof Instant i ? i.toEpochMilli() : ((Number) value).longValue();
                if (logical != null && LogicalTypes.timestampMillis().getName().equals(logical.getName())) {
                    g.writeString(Instant.ofEpochMilli(millis).toString());
                } else {
                    g.writeNumber(millis);
                }
            }
            case INT -> g.writeNumber(((Number) value).intValue());
            case BOOLEAN -> g.writeBoolean((Boolean) value);
            case FLOAT -> g.writeNumber(((Number) value).floatValue());
            case DOUBLE -> g.writeNumber(((Number) value).doubleValue());
            case ENUM -> g.writeString(value.toString());
            case ARRAY -> {
                g.writeStartArray();
                for (Object item : (Collection<?>) value) writeValue(g, item, schema.getElementType(), null);
                g.writeEndArray();
            }
            case MAP -> {
                g.writeStartObject();
                // sorted keys: output must not depend on hash ordering
                for (Map.Entry<?, ?> e : new TreeMap<>(stringKeys((Map<?, ?>) value)).entrySet()) {
                    g.writeFieldName(e.getKey().toString());
                    writeValue(g, e.getValue(), schema.getValueType(), null);
                }
                g.writeEndObject();
            }
            default -> throw new IllegalArgumentException("Avro type " + schema.getType() + " has no JSON form in Baton");
        }
    }

    private static Map<String, Object> stringKeys(Map<?, ?> map) {
        Map<String, Object> result = new LinkedHashMap<>();
        map.forEach((k, v) -> result.put(k.toString(), v));
        return result;
    }

    private static String compactOrNull(String s) {
        try {
            return CompactJson.compactObject(s);
        } catch (CompactJson.NotAJsonObject e) {
            return null;
        }
    }
}
