package dev.baton.serde;

import org.apache.avro.Schema;

/**
 * The two operations of a Confluent-compatible schema registry that the Confluent wire format needs.
 *
 * <p>Get one with {@link SchemaRegistries#forUrl(String)}: {@code mock://SCOPE} gives an in-memory
 * {@link MockSchemaRegistry}, {@code http(s)://...} an {@link HttpSchemaRegistryClient}. Implementations are
 * thread-safe and cache what they learn (ids never change meaning in a registry), so callers may call these on every
 * record.
 *
 * <p>Errors: {@link UnknownSchemaIdException} when the registry does not know an id,
 * {@link SchemaRegistryUnavailableException} when it cannot be reached or answers with a server error (transient:
 * retry, do not dead-letter), {@link SchemaRegistryException} for anything else (e.g. an incompatible schema).
 */
public interface SchemaRegistryClient {

    /**
     * Registers {@code schema} under {@code subject} (or finds it already registered) and returns its id.
     *
     * @throws SchemaRegistryException when the registry refuses it (e.g. incompatible with the subject's versions)
     */
    int register(String subject, Schema schema);

    /**
     * The schema with this id.
     *
     * @throws UnknownSchemaIdException when the registry has no schema with this id
     */
    Schema getById(int id);
}
