package dev.baton.service.command;

import java.nio.file.Path;

import picocli.CommandLine.Option;

/**
 * The options that say where Kafka and the schema registry are and how values are encoded. Each is
 * also read from a {@code BATON_*} environment variable and from the {@code --config} file; a flag
 * wins over the environment, the environment over the file. Null means "not given as a flag".
 */
public final class ConnectionOptions {

  /** How record values are encoded on the topics. */
  public enum Format { avro, json }

  @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]",
      description = "Kafka brokers to connect to. Env: BATON_BOOTSTRAP_SERVERS.")
  String bootstrapServers;

  @Option(names = "--schema-registry-url", paramLabel = "URL",
      description = "Confluent-compatible schema registry API base URL, e.g. http://registry:8081, or mock://NAME for an in-memory registry. Env: BATON_SCHEMA_REGISTRY_URL.")
  String schemaRegistryUrl;

  @Option(names = "--format", paramLabel = "avro|json",
      description = "Value encoding on the topics: avro (Confluent wire format, the default) or json. Env: BATON_FORMAT.")
  Format format;

  @Option(names = "--config", paramLabel = "FILE",
      description = "Properties file with Kafka (Streams, producer, consumer) and baton.* settings. Env: BATON_CONFIG.")
  Path config;

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public String schemaRegistryUrl() {
    return schemaRegistryUrl;
  }

  public Format format() {
    return format;
  }

  public Path config() {
    return config;
  }
}
