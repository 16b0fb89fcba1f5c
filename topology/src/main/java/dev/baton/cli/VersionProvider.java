package dev.baton.cli;

import picocli.CommandLine.IVersionProvider;

/** {@code baton --version}: Baton's version (from the jar manifest) and the versions it runs on. */
public final class VersionProvider implements IVersionProvider {

  @Override
  public String[] getVersion() {
    return new String[] {
        "baton " + version(),
        "Kafka Streams " + implementationVersion(org.apache.kafka.streams.KafkaStreams.class, "unknown")
            + ", Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
    };
  }

  /** Baton's version; {@code development} when not run from the packaged jar. */
  public static String version() {
    return implementationVersion(VersionProvider.class, "development");
  }

  private static String implementationVersion(Class<?> type, String fallback) {
    String version = type.getPackage() == null ? null : type.getPackage().getImplementationVersion();
    if (version == null) {
      // Kafka records its version in the jar, not always in the manifest
      try {
        if (type.getName().startsWith("org.apache.kafka")) {
          version = org.apache.kafka.common.utils.AppInfoParser.getVersion();
        }
      } catch (RuntimeException | LinkageError ignored) {
        // keep the fallback
      }
    }
    return version == null ? fallback : version;
  }
}
