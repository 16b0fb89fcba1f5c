package dev.baton.serde;

import org.apache.avro.Schema;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An in-memory schema registry for {@code mock://SCOPE} URLs, shared by everything in the JVM that uses the same
 * scope name (serializer and deserializer, producer and Streams app, test and code under test).
 *
 * <p>Use {@link #forScope(String)} (or {@link SchemaRegistries#forUrl(String)} with {@code mock://SCOPE}); give each
 * test its own scope name, and {@link #dropScope(String)} it afterwards. Ids are global to the scope and assigned
 * sequentially from 1; registering the same schema (same {@code Schema.toString()}, i.e. including docs and
 * defaults) again, under any subject, returns the same id, like a Confluent registry.
 */
public final class MockSchemaRegistry implements SchemaRegistryClient {
    private static final Map<String, MockSchemaRegistry> SCOPES = new ConcurrentHashMap<>();

    private final String scope;
    private final Map<String, Integer> idBySchemaText = new HashMap<>();
    private final Map<Integer, Schema> schemaById = new HashMap<>();
    private final Map<String, List<Integer>> versionsBySubject = new HashMap<>();

    private MockSchemaRegistry(String scope) {
        this.scope = scope;
    }

    /** The registry of this scope, created empty on first use. */
    public static MockSchemaRegistry forScope(String scope) {
        return SCOPES.computeIfAbsent(scope, MockSchemaRegistry::new);
    }

    /** Forgets a scope and everything registered in it (the next {@link #forScope} starts empty). */
    public static void dropScope(String scope) {
        SCOPES.remove(scope);
    }

    public String scope() {
        return scope;
    }

    @Override
    public synchronized int register(String subject, Schema schema) {
        String text = schema.toString();
        Integer id = idBySchemaText.get(text);
        if (id == null) {
            id = schemaById.size() + 1;
            idBySchemaText.put(text, id);
            // a private copy: callers cannot change what the registry holds
            schemaById.put(id, new Schema.Parser().parse(text));
        }
        List<Integer> versions = versionsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
        if (!versions.contains(id)) versions.add(id);
        return id;
    }

    @Override
    public synchronized Schema getById(int id) {
        Schema schema = schemaById.get(id);
        if (schema == null) {
            throw new UnknownSchemaIdException(id, "schema id " + id + " is not registered in mock://" + scope, 404,
                    40403);
        }
        return schema;
    }

    /** The ids registered under a subject, oldest first (empty when none). */
    public synchronized List<Integer> versions(String subject) {
        return List.copyOf(versionsBySubject.getOrDefault(subject, List.of()));
    }

    /** The subjects that have at least one schema. */
    public synchronized List<String> subjects() {
        return versionsBySubject.keySet().stream().sorted().toList();
    }
}
