package dev.baton.bench;

import dev.baton.egress.SnapshotEncoder;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.serde.MockSchemaRegistry;

import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * What the call ledger (issue 24) costs per hand-off, against the same hand-off without it: the default policy
 * (ledger of 64 entries) and the same policy with {@code call_ledger_entries} 0, measured as interleaved pairs
 * ({@link PairedComparison#pairs}) in one JVM:
 * <ul>
 *   <li>{@code handoff}: render and Avro-encode one LOCAL hand-off (record, content hash, wire format) of a state
 *       already built with / without the ledger;</li>
 *   <li>{@code apply}: apply a whole session (per event: the ledger hashes every call's canonical arguments and
 *       result);</li>
 *   <li>sizes: the snapshot's Avro bytes and the stored state's bytes, with and without.</li>
 * </ul>
 * {@code LedgerCost [SECONDS] [TURNS...]}; sessions from {@link SessionGenerator} (realistic sizes scaled by 0.1,
 * seed 42).
 */
public final class LedgerCost {
    private LedgerCost() {
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
        int[] lengths = args.length > 1 ? java.util.Arrays.stream(args, 1, args.length).mapToInt(Integer::parseInt).toArray()
                : new int[] {100, 1_000};
        Policy with = Policy.defaults();
        Policy without = with.toBuilder().callLedgerEntries(0).build();
        System.out.println("| turns | part | with ledger (µs) | without (µs) | ratio | pairs |");
        System.out.println("|---:|---|---:|---:|---:|---:|");
        for (int turns : lengths) {
            List<Turn> session = SessionGenerator.session(turns, 42L, SessionGenerator.Sizes.REALISTIC.scaled(0.1));
            row(turns, "handoff (render + encode)", PairedComparison.pairs(handoff(session, with, 2),
                    handoff(session, without, 2), seconds));
            row(turns, "render only", PairedComparison.pairs(handoff(session, with, 0), handoff(session, without, 0),
                    seconds));
            row(turns, "encode only (record, hash, Avro)", PairedComparison.pairs(handoff(session, with, 1),
                    handoff(session, without, 1), seconds));
            row(turns, "apply (whole session)", PairedComparison.pairs(apply(session, with), apply(session, without),
                    seconds));
            SessionState a = SessionGenerator.apply(session, SessionState.empty(), with);
            SessionState b = SessionGenerator.apply(session, SessionState.empty(), without);
            SnapshotEncoder encoder = SnapshotEncoder.avro(MockSchemaRegistry.forScope("ledger-cost"));
            ReadyHandoff ready = new ReadyHandoff(SessionGenerator.localHandoff(), 1_000L, null);
            Snapshot sa = ContextEngine.render("acme", "s", a, ready, with);
            Snapshot sb = ContextEngine.render("acme", "s", b, ready, without);
            System.out.printf(Locale.ROOT, "| %d | sizes | snapshot %d B, state %d B, %d entries of %d calls | "
                            + "snapshot %d B, state %d B | %.3f · %.3f | |%n", turns,
                    encoder.encode("t", sa).length, StateStorage.InMemory.of(a).dump().length,
                    sa.callLedger() == null ? 0 : sa.callLedger().entries().size(),
                    sa.callLedger() == null ? 0 : sa.callLedger().calls(),
                    encoder.encode("t", sb).length, StateStorage.InMemory.of(b).dump().length,
                    (double) encoder.encode("t", sa).length / encoder.encode("t", sb).length,
                    (double) StateStorage.InMemory.of(a).dump().length / StateStorage.InMemory.of(b).dump().length);
        }
    }

    private static void row(int turns, String part, PairedComparison.Pairs p) {
        System.out.printf(Locale.ROOT, "| %d | %s | %.1f | %.1f | %.3f | %d |%n", turns, part, p.candidateNanos() / 1e3,
                p.baselineNanos() / 1e3, p.ratio(), p.pairs());
    }

    /** {@code parts}: 0 render only, 1 encode only (the snapshot rendered once, before), 2 both. */
    private static LongSupplier handoff(List<Turn> session, Policy policy, int parts) {
        SessionState state = SessionGenerator.apply(session, SessionState.empty(), policy);
        LayoutCache layouts = RenderCaches.forState();
        SnapshotEncoder encoder = SnapshotEncoder.avro(MockSchemaRegistry.forScope("ledger-cost"));
        ReadyHandoff ready = new ReadyHandoff(SessionGenerator.localHandoff(), 1_000L, null);
        long[] sink = new long[1];
        Snapshot rendered = ContextEngine.render("acme", "bench-session", state, ready, policy, Tokenizers.none(), layouts);
        return () -> {
            long t = System.nanoTime();
            Snapshot s = parts == 1 ? rendered
                    : ContextEngine.render("acme", "bench-session", state, ready, policy, Tokenizers.none(), layouts);
            sink[0] += parts == 0 ? s.stats().messageChars() : encoder.encode("baton.context-snapshots", s).length;
            return System.nanoTime() - t + (sink[0] == Long.MIN_VALUE ? 1 : 0);
        };
    }

    private static LongSupplier apply(List<Turn> session, Policy policy) {
        long[] sink = new long[1];
        return () -> {
            long t = System.nanoTime();
            sink[0] += SessionGenerator.apply(session, SessionState.empty(), policy).nextSeq();
            return System.nanoTime() - t + (sink[0] == Long.MIN_VALUE ? 1 : 0);
        };
    }
}
