package dev.baton.bench;

import dev.baton.egress.SnapshotEncoder;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Target;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;
import dev.baton.serde.MockSchemaRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What one hand-off costs Baton's stream thread, outside Kafka: {@code ContextEngine.renderWithPrint} of a generated
 * session (the stable prefix against the previous hand-off's print, as the session processor renders),
 * then {@code SnapshotEncoder}'s Avro value (the record, its content hash, the Confluent wire format). Used by
 * {@link HandoffCost} (which may load this class twice, from two builds, to compare them in one JVM: so it only
 * uses APIs both have) and, through {@link #main}, to write a golden file of snapshots whose bytes a change of the
 * render or encode path must not alter ({@code cmp} before and after).
 */
public final class HandoffWorkload {
    private HandoffWorkload() {
    }

    /**
     * An operation that renders and encodes one hand-off ({@code local} or {@code cli}) of a generated session of
     * {@code turns} turns (compacted state, realistic sizes scaled by {@code sizeFactor}, default policy) and returns
     * its own duration in ns.
     */
    public static LongSupplier operation(String target, int turns, double sizeFactor) {
        return operation(target, turns, sizeFactor, false, false);
    }

    /**
     * {@link #operation(String, int, double)}, or only its render with {@code renderOnly}. Besides {@code local} and
     * {@code cli} (the same state handed off again and again, nothing new between), {@code local-warm} applies 25
     * new turns before each hand-off (the end-to-end harness's pace; the applying is not timed; after {@code turns}
     * new turns the state starts again from its first {@code turns} and is handed off once untimed), and
     * {@code local-cold} hands off a state just decoded from its stored form (a decoded-state cache miss; the
     * decoding is not timed). With {@code cpu} the duration is this thread's CPU time around the timed part (the
     * untimed part excluded, which timing the whole operation from outside would not).
     */
    public static LongSupplier operation(String target, int turns, double sizeFactor, boolean renderOnly,
                                         boolean cpu) {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        LongSupplier clock = cpu ? bean::getCurrentThreadCpuTime : System::nanoTime;
        Policy policy = Policy.defaults();
        SessionGenerator.Sizes sizes = SessionGenerator.Sizes.REALISTIC.scaled(sizeFactor);
        boolean warm = target.equals("local-warm");
        List<Turn> session = SessionGenerator.session(warm ? 2 * turns : turns, 42L, sizes);
        List<Turn> first = session.subList(0, turns);
        ReadyHandoff ready = new ReadyHandoff(target.equals("cli") ? SessionGenerator.cliHandoff()
                : SessionGenerator.localHandoff(), 1_000L, null);
        SnapshotEncoder encoder = SnapshotEncoder.avro(MockSchemaRegistry.forScope("handoff-workload"));
        long[] sink = new long[1];
        SessionState[] state = {SessionGenerator.apply(first, SessionState.empty(), policy)};
        LayoutCache[] layouts = {RenderCaches.forState()};
        int[] next = {turns};
        return () -> {
            if (warm) {
                if (next[0] + 25 > session.size()) {
                    state[0] = SessionGenerator.apply(first, SessionState.empty(), policy);
                    layouts[0] = RenderCaches.forState();
                    ContextEngine.render("acme", "bench-session", state[0], ready, policy, Tokenizers.none(), layouts[0]);
                    next[0] = turns;
                }
                for (int i = 0; i < 25; i++) state[0].offerTurn(session.get(next[0]++), policy, 0L);
            }
            boolean cold = target.equals("local-cold");
            SessionState s0 = cold ? StateStorage.InMemory.roundTrip(state[0]) : state[0];
            LayoutCache l0 = cold ? RenderCaches.forState() : layouts[0]; // a state read again starts without one
            long t = clock.getAsLong();
            // as the session processor renders a hand-off it emits: with the stable prefix against the receiver's
            // previous snapshot, remembering this one's print for the next
            ContextEngine.Rendered r = ContextEngine.renderWithPrint("acme", "bench-session", s0, ready, policy,
                    Tokenizers.none(), l0);
            Snapshot s = r.snapshot();
            if (r.print() != null) s0.rememberPrint(ready.handoff().toAgent(), r.print());
            sink[0] += renderOnly ? s.stats().messageChars() : encoder.encode("baton.context-snapshots", s).length;
            return clock.getAsLong() - t + (sink[0] == Long.MIN_VALUE ? 1 : 0);
        };
    }

    /**
     * {@code HandoffWorkload FILE}: writes the JSON line (content hash included) and the Avro value (hex) of many
     * snapshots — several seeds and lengths, both sizes, LOCAL and CLAUDE_CLI, the default policy and small budgets
     * that make the trim, the digest, the degenerate cut and the brick's cuts run — one per line.
     */
    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]);
        SnapshotEncoder encoder = SnapshotEncoder.avro(MockSchemaRegistry.forScope("handoff-golden"));
        List<Policy> policies = List.of(Policy.defaults(),
                Policy.builder().transcriptBudgetChars(30_000).digestBudgetChars(1_500).brickBudgetLocalChars(1_200)
                        .brickBudgetCliChars(2_000).build(),
                Policy.builder().transcriptBudgetChars(2_000).minTranscriptBudgetChars(2_000).digestBudgetChars(0)
                        .expandedTrailTurns(1).inlineTrailBytes(100).manifestCapChars(400).build());
        List<Handoff> handoffs = List.of(SessionGenerator.localHandoff(), SessionGenerator.cliHandoff(),
                new Handoff("h-claude", "qwen", "claude", Target.LOCAL, "[brief]\n\\ with (marks)…", null, null),
                new Handoff("h-coder", "reviewer", "coder", Target.LOCAL, null, null, null));
        int n = 0;
        try (OutputStream out = Files.newOutputStream(file)) {
            for (SessionGenerator.Sizes sizes : List.of(SessionGenerator.Sizes.REALISTIC,
                    new SessionGenerator.Sizes(20, 200, 100, 2_000))) {
                for (long seed = 1; seed <= 4; seed++) {
                    for (int turns : new int[] {1, 7, 40, 200}) {
                        List<Turn> session = SessionGenerator.session(turns, seed, sizes);
                        for (Policy policy : policies) {
                            SessionState state = SessionGenerator.apply(session, SessionState.empty(), policy);
                            LayoutCache layouts = RenderCaches.forState(); // the later hand-offs render warm
                            for (Handoff h : handoffs) {
                                Snapshot s = ContextEngine.render("acme", "s-" + seed + "-" + turns, state,
                                        new ReadyHandoff(h, 1_000L + turns, null), policy, Tokenizers.none(), layouts);
                                out.write(SnapshotEncoder.toJsonLine(s).getBytes(StandardCharsets.UTF_8));
                                out.write('\n');
                                out.write(java.util.HexFormat.of().formatHex(
                                        encoder.encode("baton.context-snapshots", s)).getBytes(StandardCharsets.US_ASCII));
                                out.write('\n');
                                n++;
                            }
                        }
                    }
                }
            }
        }
        System.out.println(n + " snapshots written to " + file);
    }

    /**
     * An operation that encodes one already rendered hand-off — content hash and Avro value only
     * ({@code SnapshotEncoder.encode}: the record, its hash, the Confluent wire format) — and returns its own
     * duration in ns (this thread's CPU time with {@code cpu}); the session, sizes and policy of {@link #operation}.
     * For {@code HandoffCost --part encode}.
     */
    public static LongSupplier encodeOperation(String target, int turns, double sizeFactor, boolean cpu) {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        LongSupplier clock = cpu ? bean::getCurrentThreadCpuTime : System::nanoTime;
        Policy policy = Policy.defaults();
        List<Turn> session = SessionGenerator.session(turns, 42L, SessionGenerator.Sizes.REALISTIC.scaled(sizeFactor));
        SessionState state = SessionGenerator.apply(session, SessionState.empty(), policy);
        ReadyHandoff ready = new ReadyHandoff(target.equals("cli") ? SessionGenerator.cliHandoff()
                : SessionGenerator.localHandoff(), 1_000L, null);
        Snapshot s = ContextEngine.render("acme", "bench-session", state, ready, policy);
        SnapshotEncoder encoder = SnapshotEncoder.avro(MockSchemaRegistry.forScope("handoff-encode"));
        long[] sink = new long[1];
        return () -> {
            long t = clock.getAsLong();
            sink[0] += encoder.encode("baton.context-snapshots", s).length;
            return clock.getAsLong() - t + (sink[0] == Long.MIN_VALUE ? 1 : 0);
        };
    }
}
