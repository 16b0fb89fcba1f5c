package dev.baton.egress;

import dev.baton.avro.Provenance;
import dev.baton.avro.TokenCount;
import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.FramingKind;
import dev.baton.avro.Target;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.engine.snapshot.CallLedgerEntry;
import dev.baton.engine.snapshot.CallLedgerView;
import dev.baton.engine.snapshot.EncodingTokenCount;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.SchemaRegistryClient;
import dev.baton.serde.Utf8Memo;
import org.apache.kafka.common.serialization.Serializer;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes the engine's {@link Snapshot} as the output {@code ContextSnapshot} (docs/contract.md, "Output:
 * ContextSnapshot"): Confluent-wire-format Avro ({@link #avro}, schema registered under {@code {topic}-value}) or one
 * line of JSON ({@link #json}, the form of {@code baton backfill} output: §3 field names in schema order,
 * {@code arguments} as JSON objects, {@code occurred_at} as an ISO-8601 instant, no trailing new line).
 *
 * <pre>{@code
 * SnapshotEncoder encoder = SnapshotEncoder.avro(registry);
 * byte[] value = encoder.encode("baton.context-snapshots", snapshot);
 * String line = SnapshotEncoder.toJsonLine(snapshot);
 * }</pre>
 * Output is a function of the snapshot only: the same snapshot always gives the same bytes (given the same schema id).
 * Thread-safe.
 */
public interface SnapshotEncoder {

    /** The value bytes of {@code snapshot} for {@code topic}. */
    default byte[] encode(String topic, Snapshot snapshot) {
        return encodeHashed(topic, snapshot).value();
    }

    /** The value bytes with the content hash written into them (receipts are matched against it). */
    Encoded encodeHashed(String topic, Snapshot snapshot);

    /** A snapshot's value bytes and its {@code content_sha256}. */
    record Encoded(byte[] value, String contentSha256) {
    }

    /** This encoder as a Kafka serializer. */
    default Serializer<Snapshot> serializer() {
        return (topic, snapshot) -> snapshot == null ? null : encode(topic, snapshot);
    }

    @SuppressWarnings("try") // the memo is a scope: opened for the encoding, closed after it, never read here
    static SnapshotEncoder avro(SchemaRegistryClient registry) {
        ConfluentAvroCodec<ContextSnapshot> codec = new ConfluentAvroCodec<>(registry, ContextSnapshot.class);
        // This encoder's memo per writing thread, reused from value to value and handed to both writers.
        ThreadLocal<Utf8Memo> memos = ThreadLocal.withInitial(Utf8Memo::new);
        return (topic, snapshot) -> {
            // The content hash (in toAvro) encodes the long strings to UTF-8 and leaves them in the memo, where the
            // Avro encoder finds them: each is encoded once per hand-off. Closing forgets them.
            try (Utf8Memo memo = memos.get()) {
                ContextSnapshot record = toAvro(snapshot, memo);
                return new Encoded(codec.serialize(topic, record, memo), record.getContentSha256());
            }
        };
    }

    static SnapshotEncoder json() {
        return (topic, snapshot) -> {
            ContextSnapshot record = toAvro(snapshot);
            return new Encoded(AvroJson.write(record), record.getContentSha256());
        };
    }

    /** {@code avro} or {@code json}; {@code registry} may be null for JSON. */
    static SnapshotEncoder forFormat(String format, SchemaRegistryClient registry) {
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "avro" -> avro(registry);
            case "json" -> json();
            default -> throw new IllegalArgumentException("unknown format '" + format + "': expected avro or json");
        };
    }

    /** The snapshot as one JSON line (no trailing new line). */
    static String toJsonLine(Snapshot snapshot) {
        return new String(AvroJson.write(toAvro(snapshot)), StandardCharsets.UTF_8);
    }

    /** The engine snapshot as the generated Avro record, field for field, with its content hash (docs/audit.md). */
    static ContextSnapshot toAvro(Snapshot s) {
        return toAvro(s, null);
    }

    /** {@link #toAvro(Snapshot)}, leaving the long strings' UTF-8 that the content hash encodes in {@code memo}. */
    static ContextSnapshot toAvro(Snapshot s, Utf8Memo memo) {
        List<dev.baton.avro.Message> messages = new ArrayList<>(s.messages().size());
        for (Message m : s.messages()) {
            List<dev.baton.avro.ToolCall> calls = new ArrayList<>(m.toolCalls().size());
            for (dev.baton.engine.model.ToolCall c : m.toolCalls()) {
                calls.add(new dev.baton.avro.ToolCall(c.callId(), c.tool(), c.arguments()));
            }
            messages.add(new dev.baton.avro.Message(m.role(), m.name(), m.content(), calls, m.toolCallId()));
        }
        List<dev.baton.avro.Truncation> truncations = new ArrayList<>(s.truncations().size());
        for (Truncation t : s.truncations()) {
            truncations.add(new dev.baton.avro.Truncation(AvroEnums.truncation(t.kind()), t.seqFrom(), t.seqTo(),
                    t.count(), t.marker()));
        }
        var r = s.retention();
        ContextSnapshot record = ContextSnapshot.newBuilder()
                .setSnapshotId(s.snapshotId())
                .setTenantId(s.tenantId())
                .setSessionId(s.sessionId())
                .setHandoffId(s.handoffId())
                .setFromAgent(s.fromAgent())
                .setToAgent(s.toAgent())
                .setTarget(Target.valueOf(s.target().name()))
                .setAsOfSeq(s.asOfSeq())
                .setTurnCount(s.turnCount())
                .setOccurredAt(Instant.ofEpochMilli(s.occurredAtMillis()))
                .setFraming(new dev.baton.avro.Framing(FramingKind.valueOf(s.framing().kind().name()), s.framing().systemPrompt()))
                .setBrick(s.brick())
                .setMessages(messages)
                .setRetention(new dev.baton.avro.Retention(new ArrayList<>(r.expandedSeqs()), new ArrayList<>(r.inlinedSeqs()),
                        new ArrayList<>(r.manifestSeqs()), r.manifestUnlisted(), r.trailBytes()))
                .setTruncations(truncations)
                .setStats(new dev.baton.avro.Stats(s.stats().messageChars(), s.stats().brickChars(),
                        s.stats().estimatedTokens(), tokenCounts(s.stats().tokenCounts()),
                        s.stats().stablePrefixChars()))
                .setParity(new dev.baton.avro.Parity(s.parity().referenceAgent(), s.parity().referenceItems(),
                        s.parity().coveredItems()))
                .setProvenance(provenance(s.provenance()))
                .setCallLedger(callLedger(s.callLedger()))
                .build();
        record.setContentSha256(SnapshotHash.of(record, memo));
        return record;
    }

    private static List<TokenCount> tokenCounts(List<EncodingTokenCount> counts) {
        if (counts == null) return null;
        List<TokenCount> out = new ArrayList<>(counts.size());
        for (EncodingTokenCount c : counts) {
            out.add(new TokenCount(c.encoding(), c.transcriptTokens(), c.brickTokens()));
        }
        return out;
    }

    private static dev.baton.avro.CallLedger callLedger(CallLedgerView l) {
        if (l == null) return null;
        List<dev.baton.avro.CallLedgerEntry> entries = new ArrayList<>(l.entries().size());
        for (CallLedgerEntry e : l.entries()) {
            entries.add(new dev.baton.avro.CallLedgerEntry(e.tool(), e.argumentsSha256(), e.count(), e.ok(), e.error(),
                    e.cleared(), e.unanswered(), e.firstSeq(), e.seq(), e.agent(), e.callId(), e.status(),
                    e.resultSha256(), e.resultBytes(), e.visible().wire(), e.sideEffecting()));
        }
        return new dev.baton.avro.CallLedger(entries, l.calls(), l.droppedEntries(), l.droppedCalls());
    }

    private static Provenance provenance(InputRange p) {
        if (p == null) return null;
        return new Provenance(p.topic(), p.partition(), p.firstOffset(), p.lastOffset(), p.firstLine(),
                p.lastLine());
    }
}
