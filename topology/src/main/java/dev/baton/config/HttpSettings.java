package dev.baton.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The view of the configuration that the HTTP endpoints of {@code baton run} read ({@code baton.http.*}).
 *
 * @param tokensFile the bearer tokens of session queries, or empty: every session query is refused
 */
public record HttpSettings(String bindAddress, int port, int maxUrlChars, int maxConcurrentQueries,
                           Optional<Path> tokensFile) {
}
