package dev.baton.service.ops;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.config.BatonConfig;

/**
 * An AdminClient for {@code topics} and {@code reset}: bounded in time, quiet, and every failure one line. While it is
 * open the Kafka clients log only errors (an unreachable broker is otherwise a WARN line every second until the
 * timeout: the command reports it once, itself); BATON_DEBUG=1 keeps their warnings. Each call waits at most the
 * timeout and turns Kafka's exception into an {@link AppFailure} whose message says what to check.
 */
final class KafkaAdminCalls implements AutoCloseable {

    private static final String KAFKA_CLIENTS = "org.apache.kafka.clients";

    private final Admin admin;
    private final Duration timeout;
    private final String bootstrapServers;
    private final Level previousLevel;

    KafkaAdminCalls(BatonConfig config, Duration timeout) {
        this.timeout = timeout;
        this.bootstrapServers = config.get("bootstrap.servers");
        this.previousLevel = LogManager.getLogger(KAFKA_CLIENTS).getLevel();
        if (!debug()) {
            Configurator.setLevel(KAFKA_CLIENTS, Level.ERROR);
        }
        try {
            admin = Admin.create(OpsConfig.adminProperties(config, timeout));
        } catch (KafkaException e) {
            restoreLogging();
            throw new AppFailure(ExitCodes.FAILED, "cannot connect to Kafka at " + bootstrapServers + ": " + cause(e));
        }
    }

    Admin admin() {
        return admin;
    }

    long timeoutMillis() {
        return timeout.toMillis();
    }

    /** The value of {@code future}, or a one-line failure saying what {@code what} was. */
    <T> T get(KafkaFuture<T> future, String what) {
        try {
            return future.get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AppFailure(ExitCodes.INTERRUPTED, what + ": interrupted");
        } catch (ExecutionException e) {
            throw failure(what, e.getCause() == null ? e : e.getCause());
        } catch (TimeoutException e) {
            throw failure(what, new org.apache.kafka.common.errors.TimeoutException("no answer"));
        }
    }

    /** The value of {@code future}, or empty when Kafka answers that the thing asked about does not exist. */
    <T> java.util.Optional<T> getIfExists(KafkaFuture<T> future, String what,
            Class<? extends org.apache.kafka.common.errors.ApiException> notFound) {
        try {
            return java.util.Optional.of(future.get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS));
        } catch (ExecutionException e) {
            if (notFound.isInstance(e.getCause())) {
                return java.util.Optional.empty();
            }
            throw failure(what, e.getCause() == null ? e : e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AppFailure(ExitCodes.INTERRUPTED, what + ": interrupted");
        } catch (TimeoutException e) {
            throw failure(what, new org.apache.kafka.common.errors.TimeoutException("no answer"));
        }
    }

    /** A one-line failure for {@code what} that failed with {@code e}. */
    AppFailure failure(String what, Throwable e) {
        if (e instanceof org.apache.kafka.common.errors.TimeoutException) {
            return new AppFailure(ExitCodes.FAILED, what + ": Kafka at " + bootstrapServers + " did not answer within "
                    + timeout.toSeconds() + " s (" + cause(e) + "); check --bootstrap-servers, that the brokers are up "
                    + "and reachable from here, and the security settings (security.protocol, sasl.*, ssl.*)");
        }
        if (e instanceof AuthenticationException) {
            return new AppFailure(ExitCodes.FAILED, what + ": Kafka refused the credentials: " + cause(e));
        }
        if (e instanceof AuthorizationException) {
            return new AppFailure(ExitCodes.FAILED, what + ": not allowed by the cluster's ACLs: " + cause(e));
        }
        return new AppFailure(ExitCodes.FAILED, what + ": " + cause(e));
    }

    /** The message of {@code e}, one line. */
    static String cause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root
                && (root.getMessage() == null || root instanceof KafkaException && root.getCause() != null
                        && root.getMessage().startsWith("Failed to create"))) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return message.replaceAll("\\s*\\R\\s*", " ").strip();
    }

    @Override
    public void close() {
        try {
            admin.close(Duration.ZERO); // every call was awaited: nothing pending is worth waiting for
        } finally {
            restoreLogging();
        }
    }

    private void restoreLogging() {
        if (!debug()) {
            Configurator.setLevel(KAFKA_CLIENTS, previousLevel);
        }
    }

    private static boolean debug() {
        String value = System.getenv("BATON_DEBUG");
        return value != null && !value.isBlank() && !value.equals("0") && !value.equalsIgnoreCase("false");
    }
}
