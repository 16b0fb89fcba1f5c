package dev.baton.bench;

import dev.baton.avro.ContextSnapshot;
import dev.baton.egress.SnapshotEncoder;
import dev.baton.egress.SnapshotHash;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.processor.JTokkitTokenizers;
import dev.baton.serde.AvroJson;

import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * What token counts, token caps and the content hash cost per hand-off, as ratios of interleaved pairs in one JVM (candidate and baseline alternate, the
 * ratio is the median of the per-pair ratios): rendering a LOCAL hand-off with exact token counts or a token cap
 * against rendering without, and computing the content hash against writing the snapshot's JSON line.
 *
 * <pre>{@code java -cp "$CP" dev.baton.bench.TokenCostReport [--seconds 4] [--turns 100,1000]}</pre>
 */
public final class TokenCostReport {
    private TokenCostReport() {
    }

    public static void main(String[] args) {
        double seconds = 4;
        List<Integer> sizes = List.of(100, 1000);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--turns" -> sizes = java.util.Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        Tokenizers tokenizers = JTokkitTokenizers.shared();
        Policy plain = Policy.defaults();
        Policy counted = plain.toBuilder().tokenCountEncodings("o200k_base,cl100k_base").build();
        Policy capLoose = plain.toBuilder().transcriptBudgetTokens(10_000_000).build();
        Policy capBinding = plain.toBuilder().transcriptBudgetTokens(20_000).build();

        System.out.println("| turns | candidate vs baseline | ratio | candidate µs | baseline µs | pairs |");
        System.out.println("|---|---|---|---|---|---|");
        for (int turns : sizes) {
            SessionState state = SessionGenerator.apply(SessionGenerator.session(turns, 42L), SessionState.empty(), plain);
            ReadyHandoff local = new ReadyHandoff(SessionGenerator.localHandoff(), 1_000L, null);
            LayoutCache layouts = RenderCaches.forState(); // held beside the state, as the processor holds it
            LongSupplier base = timed(() -> ContextEngine.render("acme", "s", state, local, plain, tokenizers, layouts)
                    .stats().messageChars());
            row(turns, "render + counts (o200k_base, cl100k_base) vs render", timed(() ->
                    ContextEngine.render("acme", "s", state, local, counted, tokenizers, layouts).stats().tokenCounts()
                            .get(0).transcriptTokens()), base, seconds);
            row(turns, "render with a token cap that does not bind vs render", timed(() ->
                    ContextEngine.render("acme", "s", state, local, capLoose, tokenizers, layouts).stats().messageChars()),
                    base, seconds);
            row(turns, "render with a binding token cap (20,000 o200k tokens) vs render", timed(() ->
                    ContextEngine.render("acme", "s", state, local, capBinding, tokenizers, layouts).stats().messageChars()),
                    base, seconds);
            Snapshot snapshot = ContextEngine.render("acme", "s", state, local, plain, tokenizers, layouts);
            ContextSnapshot record = SnapshotEncoder.toAvro(snapshot);
            row(turns, "content hash vs writing the JSON line", timed(() -> SnapshotHash.of(record).length()),
                    timed(() -> AvroJson.write(record).length), seconds);
            row(turns, "content hash vs render", timed(() -> SnapshotHash.of(record).length()), base, seconds);
            System.out.printf(Locale.ROOT, "|  | (%d turns: %,d transcript characters, %,d o200k_base tokens; capped: %,d characters) | | | | |%n",
                    turns, snapshot.stats().messageChars(),
                    ContextEngine.render("acme", "s", state, local, counted, tokenizers, layouts).stats().tokenCounts().get(0)
                            .transcriptTokens(),
                    ContextEngine.render("acme", "s", state, local, capBinding, tokenizers, layouts).stats().messageChars());
        }
    }

    private static void row(int turns, String what, LongSupplier candidate, LongSupplier baseline, double seconds) {
        PairedComparison.Pairs p = PairedComparison.pairs(candidate, baseline, seconds);
        System.out.printf(Locale.ROOT, "| %d | %s | %.2f | %,.0f | %,.0f | %d |%n", turns, what, p.ratio(),
                p.candidateNanos() / 1e3, p.baselineNanos() / 1e3, p.pairs());
    }

    private static LongSupplier timed(LongSupplier op) {
        long[] sink = new long[1];
        return () -> {
            long t = System.nanoTime();
            sink[0] += op.getAsLong();
            return System.nanoTime() - t + (sink[0] == Long.MIN_VALUE ? 1 : 0);
        };
    }

}
