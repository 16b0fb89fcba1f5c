package dev.baton.bench;

import dev.baton.egress.SnapshotEncoder;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.model.Role;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.serde.MockSchemaRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Issue 22, item 4: how much of a workload's snapshots is a stable prefix ({@code stats.stable_prefix_chars}), and
 * what trimming in steps ({@code trim_step_chars}) gains in it and costs in tail length. Generated sessions
 * ({@link SessionGenerator}, sizes scaled by {@code --size-factor}) are applied one turn at a time and handed off to the
 * same LOCAL receiver every {@code --every} turns, as the processor does it (the emitted snapshot's print remembered in
 * the state); each snapshot is also rendered with steps off from the same state, for R5's longest tail beside it.
 *
 * <p>{@code StablePrefixReport [--turns 1000] [--every 25] [--size-factor 0.1] [--seeds 3] [--steps 0,4000,...]
 * [--text-only false]}
 * prints one row per step: hand-offs, stable prefix as a share of the messages' characters and of the encoded snapshot
 * bytes (Avro, Confluent framing), and per hand-off the mean turns shown and message characters, against R5's.
 */
public final class StablePrefixReport {
    private StablePrefixReport() {
    }

    /** Totals over one step's hand-offs. */
    static final class Totals {
        long handoffs;
        long trimmed;
        long messageChars;
        long stableChars;
        long snapshotBytes;
        long shownTurns;
        long longestShownTurns;
        long longestMessageChars;
    }

    public static void main(String[] args) {
        int turns = 1_000;
        int every = 25;
        double sizeFactor = 0.1;
        int seeds = 3;
        List<Integer> steps = List.of(0, 4_000, 16_000, 64_000);
        boolean textOnly = false;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--turns" -> turns = Integer.parseInt(args[i + 1]);
                case "--every" -> every = Integer.parseInt(args[i + 1]);
                case "--size-factor" -> sizeFactor = Double.parseDouble(args[i + 1]);
                case "--seeds" -> seeds = Integer.parseInt(args[i + 1]);
                case "--text-only" -> textOnly = Boolean.parseBoolean(args[i + 1]);
                case "--steps" -> {
                    List<Integer> s = new ArrayList<>();
                    for (String v : args[i + 1].split(",")) s.add(Integer.parseInt(v.strip()));
                    steps = s;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.printf(Locale.ROOT, "sessions: %d × %d turns, size factor %.2f, a LOCAL hand-off every %d turns, "
                + "default policy (400,000-character budget)%s%n", seeds, turns, sizeFactor, every,
                textOnly ? ", tool activity as plain text (no trails, so no manifest)" : "");
        System.out.println("| trim_step_chars | hand-offs (trimmed) | stable / message chars | stable / snapshot bytes "
                + "| turns shown (R5's) | message chars (R5's) |");
        System.out.println("|---:|---:|---:|---:|---:|---:|");
        for (int step : steps) {
            Totals t = run(turns, every, sizeFactor, seeds, step, textOnly);
            System.out.printf(Locale.ROOT, "| %,d | %d (%d) | %.1f %% | %.1f %% | %.1f (%.1f) | %,d (%,d) |%n", step,
                    t.handoffs, t.trimmed, 100.0 * t.stableChars / Math.max(1, t.messageChars),
                    100.0 * t.stableChars / Math.max(1, t.snapshotBytes),
                    (double) t.shownTurns / t.handoffs, (double) t.longestShownTurns / t.handoffs,
                    t.messageChars / t.handoffs, t.longestMessageChars / t.handoffs);
        }
    }

    static Totals run(int turns, int every, double sizeFactor, int seeds, int step, boolean textOnly) {
        Policy policy = Policy.builder().trimStepChars(step).build();
        Policy longest = policy.toBuilder().trimStepChars(0).build();
        SnapshotEncoder encoder = SnapshotEncoder.avro(MockSchemaRegistry.forScope("stable-prefix"));
        ReadyHandoff ready = new ReadyHandoff(SessionGenerator.localHandoff(), 1_000L, null);
        Totals t = new Totals();
        for (long seed = 1; seed <= seeds; seed++) {
            List<Turn> session = SessionGenerator.session(turns, seed,
                    SessionGenerator.Sizes.REALISTIC.scaled(sizeFactor));
            if (textOnly) session = textOnly(session);
            SessionState state = SessionState.empty();
            for (int i = 0; i < session.size(); i++) {
                state.offerTurn(session.get(i), policy, 0L);
                if ((i + 1) % every != 0) continue;
                ContextEngine.Rendered r = ContextEngine.renderWithPrint("acme", "s-" + seed, state, ready, policy,
                        Tokenizers.none(), LayoutCache.none());
                Snapshot s = r.snapshot();
                state.rememberPrint(ready.handoff().toAgent(), r.print());
                Snapshot ref = ContextEngine.render("acme", "s-" + seed, state, ready, longest);
                t.handoffs++;
                if (omitted(s) > 0) t.trimmed++;
                t.messageChars += s.stats().messageChars();
                t.stableChars += s.stats().stablePrefixChars() == null ? 0 : s.stats().stablePrefixChars();
                t.snapshotBytes += encoder.encode("baton.context-snapshots", s).length;
                t.shownTurns += s.turnCount() - omitted(s);
                t.longestShownTurns += ref.turnCount() - omitted(ref);
                t.longestMessageChars += ref.stats().messageChars();
            }
        }
        return t;
    }

    /**
     * The same session without tool activity: trails and legacy calls dropped, a TOOL turn's result as its agent's
     * text (the same seqs and about the same sizes, and no manifest, whose changes end every prefix at the head).
     */
    static List<Turn> textOnly(List<Turn> session) {
        List<Turn> out = new ArrayList<>(session.size());
        for (Turn t : session) {
            Role role = t.role() == Role.TOOL ? Role.ASSISTANT : t.role();
            String text = t.text().isEmpty() && role == Role.ASSISTANT ? "(working)" : t.text();
            out.add(new Turn(t.seq(), t.agent(), role, text, List.of(), List.of(), null, null, null));
        }
        return out;
    }

    /** Turns the middle leaves out (0 when the transcript was not trimmed). */
    static long omitted(Snapshot s) {
        for (Truncation t : s.truncations()) {
            if (t.kind() == TruncationKind.TRANSCRIPT_MIDDLE_SUMMARIZED || t.kind() == TruncationKind.TRANSCRIPT_MIDDLE_DROPPED) {
                return t.count();
            }
        }
        return 0;
    }
}
