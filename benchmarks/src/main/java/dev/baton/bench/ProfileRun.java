package dev.baton.bench;

import dev.baton.engine.ContextEngine;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.engine.model.Turn;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StateStorage;

import java.util.List;
import java.util.Locale;

/**
 * Runs one engine scenario in a loop for a while, in this JVM, so that a profiler (JFR) sees only that scenario:
 * {@code ProfileRun SCENARIO KIND TURNS SECONDS} with SCENARIO one of apply, render-local, render-cli, encode,
 * decode, handoff-local, handoff-cli (render + content hash + Avro value, {@link HandoffWorkload}: always a compacted
 * state), workload-TARGET or workload-render-TARGET (any {@link HandoffWorkload} target, e.g. local-warm: render +
 * hash + Avro, or render only) and KIND COMPACTED or FULL. Prints operations per second; not a benchmark (no forks, no statistics).
 */
public final class ProfileRun {
    private ProfileRun() {
    }

    public static void main(String[] args) {
        if (args.length != 4 && args.length != 5) {
            System.err.println("usage: ProfileRun apply|render-local|render-cli|handoff-local|handoff-cli|workload-[render-]TARGET|encode|decode COMPACTED|FULL TURNS SECONDS [SIZE_FACTOR (handoff-*)]");
            System.exit(2);
        }
        String scenario = args[0];
        StateKind kind = StateKind.valueOf(args[1]);
        int turns = Integer.parseInt(args[2]);
        long until = System.nanoTime() + Long.parseLong(args[3]) * 1_000_000_000L;
        Policy policy = Policy.defaults();
        List<Turn> session = SessionGenerator.session(turns, 42L);
        SessionState state = SessionGenerator.apply(session, kind.newState(), policy);
        byte[] encoded = StateStorage.InMemory.of(state).dump();
        ReadyHandoff local = new ReadyHandoff(SessionGenerator.localHandoff(), 1_000L, null);
        ReadyHandoff cli = new ReadyHandoff(SessionGenerator.cliHandoff(), 1_000L, null);
        double sizeFactor = args.length == 5 ? Double.parseDouble(args[4]) : 1.0;
        // render + content hash + Avro value (HandoffWorkload; a compacted state of its own)
        java.util.function.LongSupplier handoffLocal = scenario.equals("handoff-local")
                ? HandoffWorkload.operation("local", turns, sizeFactor) : null;
        java.util.function.LongSupplier handoffCli = scenario.equals("handoff-cli")
                ? HandoffWorkload.operation("cli", turns, sizeFactor) : null;
        // workload-TARGET: any HandoffWorkload target (local-warm, local-cold, ...); workload-render-TARGET: its render
        boolean renderOnly = scenario.startsWith("workload-render-");
        java.util.function.LongSupplier workload = scenario.startsWith("workload-")
                ? HandoffWorkload.operation(scenario.substring(renderOnly ? 16 : 9), turns, sizeFactor, renderOnly, false)
                : null;
        LayoutCache layouts = RenderCaches.forState();
        long ops = 0;
        long start = System.nanoTime();
        int sink = 0;
        while (System.nanoTime() < until) {
            switch (scenario) {
                case "apply" -> sink += (int) SessionGenerator.apply(session, kind.newState(), policy).turnCount();
                case "render-local" -> sink += (int) ContextEngine.render("acme", "s", state, local, policy, Tokenizers.none(), layouts).stats().messageChars();
                case "render-cli" -> sink += (int) ContextEngine.render("acme", "s", state, cli, policy, Tokenizers.none(), layouts).stats().brickChars();
                case "encode" -> sink += StateStorage.InMemory.of(state).dump().length;
                case "decode" -> sink += (int) StateStorage.InMemory.roundTrip(state).turnCount();
                case "handoff-local" -> sink += (int) handoffLocal.getAsLong();
                case "handoff-cli" -> sink += (int) handoffCli.getAsLong();
                default -> {
                    if (workload == null) throw new IllegalArgumentException("unknown scenario " + scenario);
                    sink += (int) workload.getAsLong();
                }
            }
            ops++;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "%s %s %d turns: %d ops in %.1f s = %.2f ops/s (%.3f ms/op) [%d]%n",
                scenario, kind, turns, ops, seconds, ops / seconds, seconds * 1_000 / ops, sink);
    }
}
