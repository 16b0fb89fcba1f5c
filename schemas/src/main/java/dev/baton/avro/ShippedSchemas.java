package dev.baton.avro;

import org.apache.avro.Schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The schemas exactly as shipped: parsed from the {@code .avsc} files of {@code schemas/src/main/avro} (in the jar
 * under {@code avro/}), not taken from the generated classes. A generated class's schema carries Java-only
 * properties ({@code "avro.java.string": "String"} on every string, added by the code generator for
 * {@code stringType=String}); registering that would give a registry a different schema from the one anyone else
 * registers from the shipped files, so a second version. The shipped schema and the generated one have the same
 * parsing canonical form, so they read and write the same bytes.
 */
public final class ShippedSchemas {

    /** The named types the record schemas reference, parsed first (as the code generator does). */
    private static final List<String> SHARED = List.of("Target", "ToolCall", "HandoffResult");
    private static final Map<String, Schema> BY_NAME = new ConcurrentHashMap<>();

    private ShippedSchemas() {
    }

    /** The shipped schema of record {@code name} (e.g. {@code SessionEvent}), self-contained. */
    public static Schema of(String name) {
        return BY_NAME.computeIfAbsent(name, ShippedSchemas::parse);
    }

    /**
     * The shipped schema of the same record as {@code schema} (a generated class's schema), or {@code schema}
     * itself when no {@code .avsc} of that name is shipped.
     */
    public static Schema forSchema(Schema schema) {
        if (schema.getType() != Schema.Type.RECORD || !"dev.baton.avro".equals(schema.getNamespace())
                || ShippedSchemas.class.getResource(path(schema.getName())) == null) {
            return schema;
        }
        return of(schema.getName());
    }

    private static Schema parse(String name) {
        Schema.Parser parser = new Schema.Parser();
        for (String shared : SHARED) {
            if (!shared.equals(name)) parser.parse(text(shared));
        }
        return parser.parse(text(name));
    }

    private static String text(String name) {
        try (InputStream in = ShippedSchemas.class.getResourceAsStream(path(name))) {
            if (in == null) throw new IllegalArgumentException("no shipped schema " + path(name));
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String path(String name) {
        return "/avro/" + name + ".avsc";
    }
}
