package dev.baton.service.command;

import dev.baton.app.BatonVersion;
import picocli.CommandLine.IVersionProvider;

/** {@code baton --version}: Baton's version (from the jar manifest) and the versions it runs on. */
public final class VersionProvider implements IVersionProvider {

    @Override
    public String[] getVersion() {
        return new String[] {
            "baton " + BatonVersion.version(),
            "Kafka Streams " + BatonVersion.kafkaStreamsVersion()
                + ", Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
        };
    }
}
