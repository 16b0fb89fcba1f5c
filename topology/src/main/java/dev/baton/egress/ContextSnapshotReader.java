package dev.baton.egress;

import dev.baton.avro.Provenance;
import dev.baton.avro.TokenCount;
import dev.baton.engine.snapshot.CallLedgerEntry;
import dev.baton.engine.snapshot.CallLedgerView;
import dev.baton.engine.snapshot.EncodingTokenCount;
import dev.baton.engine.snapshot.InputRange;
import dev.baton.avro.ContextSnapshot;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.ToolCall;
import dev.baton.engine.snapshot.Framing;
import dev.baton.engine.snapshot.FramingKind;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Parity;
import dev.baton.engine.snapshot.Retention;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Stats;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.serde.AvroJson;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.SchemaRegistryClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads {@code ContextSnapshot} values back (Avro wire format or JSON line), as the generated record or as the
 * engine's {@link Snapshot}. Used by tests and by the command line to print snapshots.
 *
 * <pre>{@code
 * ContextSnapshotReader reader = ContextSnapshotReader.avro(registry);
 * ContextSnapshot record = reader.read(value);
 * Snapshot snapshot = reader.readSnapshot(value);   // equals the snapshot that was encoded
 * }</pre>
 * Errors are {@link dev.baton.serde.AvroReadException} or {@link dev.baton.serde.JsonReadException}. Thread-safe.
 */
public final class ContextSnapshotReader {
    private final ConfluentAvroCodec<ContextSnapshot> avro; // null: JSON

    private ContextSnapshotReader(ConfluentAvroCodec<ContextSnapshot> avro) {
        this.avro = avro;
    }

    public static ContextSnapshotReader avro(SchemaRegistryClient registry) {
        return new ContextSnapshotReader(new ConfluentAvroCodec<>(registry, ContextSnapshot.class));
    }

    public static ContextSnapshotReader json() {
        return new ContextSnapshotReader(null);
    }

    /** {@code avro} or {@code json}; {@code registry} may be null for JSON. */
    public static ContextSnapshotReader forFormat(String format, SchemaRegistryClient registry) {
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "avro" -> avro(registry);
            case "json" -> json();
            default -> throw new IllegalArgumentException("unknown format '" + format + "': expected avro or json");
        };
    }

    public ContextSnapshot read(byte[] value) {
        return avro != null ? avro.deserialize(value) : AvroJson.read(value, ContextSnapshot.class);
    }

    public Snapshot readSnapshot(byte[] value) {
        return toSnapshot(read(value));
    }

    /** The generated record as the engine's snapshot, field for field (the inverse of {@link SnapshotEncoder#toAvro}). */
    public static Snapshot toSnapshot(ContextSnapshot c) {
        List<Message> messages = new ArrayList<>(c.getMessages().size());
        for (dev.baton.avro.Message m : c.getMessages()) {
            List<ToolCall> calls = new ArrayList<>(m.getToolCalls().size());
            for (dev.baton.avro.ToolCall t : m.getToolCalls()) calls.add(new ToolCall(t.getCallId(), t.getTool(), t.getArguments()));
            messages.add(new Message(m.getRole(), m.getName(), m.getContent(), calls, m.getToolCallId()));
        }
        List<Truncation> truncations = new ArrayList<>(c.getTruncations().size());
        for (dev.baton.avro.Truncation t : c.getTruncations()) {
            truncations.add(new Truncation(TruncationKind.valueOf(t.getKind().name()), t.getSeqFrom(), t.getSeqTo(),
                    t.getCount(), t.getMarker()));
        }
        var r = c.getRetention();
        return new Snapshot(c.getSnapshotId(), c.getTenantId(), c.getSessionId(), c.getHandoffId(), c.getFromAgent(),
                c.getToAgent(), Target.valueOf(c.getTarget().name()), c.getAsOfSeq(), c.getTurnCount(),
                c.getOccurredAt().toEpochMilli(),
                new Framing(FramingKind.valueOf(c.getFraming().getKind().name()), c.getFraming().getSystemPrompt()),
                c.getBrick(), messages,
                new Retention(r.getExpandedSeqs(), r.getInlinedSeqs(), r.getManifestSeqs(), r.getManifestUnlisted(), r.getTrailBytes()),
                truncations,
                new Stats(c.getStats().getMessageChars(), c.getStats().getBrickChars(), c.getStats().getEstimatedTokens(),
                        tokenCounts(c.getStats().getTokenCounts()), c.getStats().getStablePrefixChars()),
                new Parity(c.getParity().getReferenceAgent(), c.getParity().getReferenceItems(), c.getParity().getCoveredItems()),
                provenance(c.getProvenance()), callLedger(c.getCallLedger()));
    }

    private static CallLedgerView callLedger(dev.baton.avro.CallLedger l) {
        if (l == null) return null;
        List<CallLedgerEntry> entries = new ArrayList<>(l.getEntries().size());
        for (dev.baton.avro.CallLedgerEntry e : l.getEntries()) {
            entries.add(new CallLedgerEntry(e.getTool(), e.getArgumentsSha256(), e.getCount(), e.getOk(), e.getError(),
                    e.getCleared(), e.getUnanswered(), e.getFirstSeq(), e.getSeq(), e.getAgent(), e.getCallId(),
                    e.getStatus(), e.getResultSha256(), e.getResultBytes(),
                    CallLedgerEntry.Visibility.valueOf(e.getVisible().toUpperCase(java.util.Locale.ROOT)),
                    e.getSideEffecting()));
        }
        return new CallLedgerView(entries, l.getCalls(), l.getDroppedEntries(), l.getDroppedCalls());
    }

    private static List<EncodingTokenCount> tokenCounts(List<TokenCount> counts) {
        if (counts == null) return null;
        List<EncodingTokenCount> out = new ArrayList<>(counts.size());
        for (TokenCount t : counts) {
            out.add(new EncodingTokenCount(t.getEncoding(), t.getTranscriptTokens(), t.getBrickTokens()));
        }
        return out;
    }

    private static InputRange provenance(Provenance p) {
        return p == null ? null : new InputRange(p.getTopic(), p.getPartition(),
                p.getFirstOffset(), p.getLastOffset(), p.getFirstLine(), p.getLastLine());
    }
}
