package dev.baton.app;

/** Baton's version and the versions it runs on, from the jar manifests. */
public final class BatonVersion {

    private BatonVersion() {
    }

    /** Baton's version; {@code development} when not run from a packaged jar. */
    public static String version() {
        return implementationVersion(BatonVersion.class, "development");
    }

    /** The version of Kafka Streams on the class path. */
    public static String kafkaStreamsVersion() {
        return implementationVersion(org.apache.kafka.streams.KafkaStreams.class, "unknown");
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
