package dev.baton.replay;

import java.util.Map;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;

/** Log levels for the commands that are not services. */
final class Logging {

    private Logging() {
    }

    /**
     * {@code demo} and {@code backfill} own their broker and application: Kafka's warnings about them
     * (rebalances, a missing optional topic, disconnects at shutdown) are not the user's concern, and
     * stderr is for progress. Errors still show; {@code BATON_LOG_LEVEL} (or {@code -Dbaton.log.level})
     * brings everything back.
     */
    static void quietForEmbeddedRun() {
        if (System.getenv("BATON_LOG_LEVEL") != null || System.getProperty("baton.log.level") != null) {
            return;
        }
        Configurator.setLevel(Map.of(
                "org.apache.kafka", Level.ERROR,
                "kafka", Level.ERROR,
                "dev.baton", Level.WARN));
    }
}
