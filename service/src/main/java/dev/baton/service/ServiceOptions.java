package dev.baton.service;

import java.nio.file.Path;

/**
 * What {@code baton run} was given on its command line; null means "not given as a flag" (the
 * environment and the config file may still set it).
 *
 * @param bootstrapServers  Kafka brokers
 * @param schemaRegistryUrl the registry's Confluent API base URL, or {@code mock://NAME}
 * @param format            {@code avro} or {@code json}
 * @param config            a properties file
 * @param httpPort          the HTTP port
 */
public record ServiceOptions(String bootstrapServers, String schemaRegistryUrl, String format, Path config,
                             Integer httpPort) {
}
