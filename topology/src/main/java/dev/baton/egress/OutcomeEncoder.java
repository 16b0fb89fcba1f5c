package dev.baton.egress;

import dev.baton.avro.HandoffOutcome;
import dev.baton.avro.HandoffResult;
import dev.baton.avro.TokenCountKind;
import dev.baton.processor.JoinedOutcome;
import dev.baton.processor.SnapshotEmitted;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.SchemaRegistryClient;

import java.time.Instant;
import java.util.Locale;

/**
 * Writes a {@link JoinedOutcome} as the {@code HandoffOutcome} of topic {@code baton.handoff-outcomes}: Avro in the
 * Confluent wire format (schema registered under {@code {topic}-value}) or one line of JSON. Thread-safe.
 */
public interface OutcomeEncoder {

    byte[] encode(String topic, JoinedOutcome outcome);

    static OutcomeEncoder forFormat(String format, SchemaRegistryClient registry) {
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "avro" -> {
                ConfluentAvroCodec<HandoffOutcome> codec = new ConfluentAvroCodec<>(registry, HandoffOutcome.class);
                yield (topic, o) -> codec.serialize(topic, toAvro(o));
            }
            case "json" -> (topic, o) -> AvroJson.write(toAvro(o));
            default -> throw new IllegalArgumentException("unknown format '" + format + "': expected avro or json");
        };
    }

    static HandoffOutcome toAvro(JoinedOutcome o) {
        SnapshotEmitted s = o.snapshot();
        return HandoffOutcome.newBuilder()
                .setSnapshotId(s.session().snapshotId(s.handoffId()))
                .setTenantId(s.session().tenantId())
                .setSessionId(s.session().sessionId())
                .setFromAgent(s.fromAgent())
                .setToAgent(s.toAgent())
                .setAsOfSeq(s.asOfSeq())
                .setContentSha256(s.contentSha256())
                .setSnapshotBytes(s.snapshotBytes())
                .setMessageChars(s.messageChars())
                .setBrickChars(s.brickChars())
                .setTranscriptTokens(s.transcriptTokens())
                .setBrickTokens(s.brickTokens())
                .setTokenCount(s.exactEncoding() != null ? TokenCountKind.EXACT : TokenCountKind.ESTIMATE)
                .setTokenEncoding(s.exactEncoding())
                .setEmittedAt(Instant.ofEpochMilli(o.emittedAtMillis()))
                .setAcknowledgedAt(Instant.ofEpochMilli(o.acknowledgedAtMillis()))
                .setTimeToReceiptMillis(o.timeToReceiptMillis())
                .setReceiverModel(o.receiverModel())
                .setBudgetTokens(o.budgetTokens())
                .setStartedAt(Instant.ofEpochMilli(o.startedAtMillis()))
                .setOutcome(o.outcome() == null ? null : HandoffResult.valueOf(o.outcome().name()))
                .setTokensSpent(o.tokensSpent())
                .setDialect(o.dialect())
                .build();
    }
}
