package dev.baton.engine;

import dev.baton.engine.brick.BrickBuilder;
import dev.baton.engine.framing.FramingSelector;
import dev.baton.engine.layout.LayoutCache;
import dev.baton.engine.layout.MessageWriter;
import dev.baton.engine.layout.Segment;
import dev.baton.engine.layout.SegmentBuilder;
import dev.baton.engine.markers.TruncationLog;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.model.Target;
import dev.baton.engine.narration.Narration;
import dev.baton.engine.narration.StepView;
import dev.baton.engine.parity.ParityCheck;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.retention.Manifest;
import dev.baton.engine.retention.RetentionPlan;
import dev.baton.engine.retention.RetentionPlanner;
import dev.baton.engine.snapshot.CallLedgerView;
import dev.baton.engine.snapshot.Framing;
import dev.baton.engine.snapshot.Message;
import dev.baton.engine.snapshot.Parity;
import dev.baton.engine.snapshot.PrefixPrint;
import dev.baton.engine.snapshot.Retention;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.snapshot.Stats;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.trim.HeadTailTrim;
import dev.baton.engine.trim.TokenMeasure;
import dev.baton.engine.tokens.Tokenizer;
import dev.baton.engine.tokens.Tokenizers;
import dev.baton.engine.snapshot.EncodingTokenCount;

import java.util.ArrayList;
import java.util.List;

/**
 * The context engine's entry point: plain values in, a {@link Snapshot} out (docs/contract.md, "Rendering rules
 * R1–R11"). No Kafka types, no clock, no randomness, no hash ordering: the snapshot is a function of the applied
 * events, the hand-off and the policy (R10).
 *
 * <p>Rendering, rule by rule: the retention plan ({@link RetentionPlanner}, R3) decides which trails render; the
 * layout ({@link SegmentBuilder}) turns the session into segments; {@link HeadTailTrim} (R5) fits them into the
 * transcript budget, which is the same for every receiver (R4); {@link MessageWriter} writes them for the receiver,
 * natively for its own steps and narrated for everyone else's (R1) with escaping (R2); {@link BrickBuilder} (R6)
 * and {@link FramingSelector} (R7) add orientation; {@link TruncationLog} lists every visible marker (R8);
 * {@link ParityCheck} compares with the primary's own rendering (R9). CLAUDE_CLI gets no transcript (R11).
 */
public final class ContextEngine {
    private ContextEngine() {
    }

    /** Renders the snapshot of {@code state} for a ready hand-off, without tokenizers. Does not modify the state. */
    public static Snapshot render(String tenantId, String sessionId, SessionState state, ReadyHandoff ready,
                                  Policy policy) {
        return render(tenantId, sessionId, state, ready, policy, Tokenizers.none());
    }

    /**
     * Renders the snapshot of {@code state} for a ready hand-off. Does not modify the state. {@code tokenizers} is
     * asked only when the policy caps the transcript in tokens or asks for token counts; otherwise nothing is counted.
     *
     * @throws IllegalArgumentException when the policy names an encoding {@code tokenizers} does not know
     */
    public static Snapshot render(String tenantId, String sessionId, SessionState state, ReadyHandoff ready,
                                  Policy policy, Tokenizers tokenizers) {
        return render(tenantId, sessionId, state, ready, policy, tokenizers, LayoutCache.none());
    }

    /**
     * {@link #render(String, String, SessionState, ReadyHandoff, Policy, Tokenizers)} with the session's render cache:
     * unchanged turns reuse the segments they laid out into at an earlier hand-off ({@link LayoutCache}, held by the
     * caller beside {@code state}; the same snapshot, computed warm). Does not modify the state.
     */
    public static Snapshot render(String tenantId, String sessionId, SessionState state, ReadyHandoff ready,
                                  Policy policy, Tokenizers tokenizers, LayoutCache layouts) {
        return render(tenantId, sessionId, state, ready, policy, tokenizers, layouts, null, false).snapshot();
    }

    /**
     * {@link #render(String, String, SessionState, ReadyHandoff, Policy, Tokenizers, LayoutCache)} with the brick line
     * that reports the session's previous escalation's outcome ({@link BrickBuilder}); null: none.
     */
    public static Snapshot render(String tenantId, String sessionId, SessionState state, ReadyHandoff ready,
                                  Policy policy, Tokenizers tokenizers, LayoutCache layouts, String previousOutcome) {
        return render(tenantId, sessionId, state, ready, policy, tokenizers, layouts, previousOutcome, false)
                .snapshot();
    }

    /**
     * A snapshot to emit and, for a LOCAL target, the print of its messages ({@link PrefixPrint}, null for
     * CLAUDE_CLI): the caller that emits the snapshot gives it to {@link SessionState#rememberPrint}, so that the
     * receiver's next snapshot reports its stable prefix against this one and the trim step starts from its tail.
     */
    public record Rendered(Snapshot snapshot, PrefixPrint print) {
    }

    /**
     * {@link #render(String, String, SessionState, ReadyHandoff, Policy, Tokenizers, LayoutCache, String)} for a
     * snapshot that is emitted: the same snapshot, with the print to remember. Does not modify the state.
     */
    public static Rendered renderWithPrint(String tenantId, String sessionId, SessionState state, ReadyHandoff ready,
                                           Policy policy, Tokenizers tokenizers, LayoutCache layouts,
                                           String previousOutcome) {
        return render(tenantId, sessionId, state, ready, policy, tokenizers, layouts, previousOutcome, true);
    }

    /** {@link #renderWithPrint(String, String, SessionState, ReadyHandoff, Policy, Tokenizers, LayoutCache, String)}
     *  without a previous outcome. */
    public static Rendered renderWithPrint(String tenantId, String sessionId, SessionState state, ReadyHandoff ready,
                                           Policy policy, Tokenizers tokenizers, LayoutCache layouts) {
        return render(tenantId, sessionId, state, ready, policy, tokenizers, layouts, null, true);
    }

    private static Rendered render(String tenantId, String sessionId, SessionState state, ReadyHandoff ready,
                                   Policy policy, Tokenizers tokenizers, LayoutCache layouts, String previousOutcome,
                                   boolean print) {
        layouts.prune(state);
        Handoff h = ready.handoff();
        String receiver = h.toAgent();
        int budget = policy.transcriptBudgetFor(h.messageBudgetChars());
        RetentionPlan plan = RetentionPlanner.plan(state, policy);
        Manifest.Rendered manifest = plan.hasManifest() ? Manifest.render(plan, manifestCap(policy, budget)) : null;
        Framing framing = FramingSelector.select(state, h, policy);
        BrickBuilder.Brick brick = BrickBuilder.build(tenantId, sessionId, state, plan, h, ready.pendingMissing(), policy,
                layouts, previousOutcome);

        TruncationLog log = new TruncationLog();
        List<Message> messages = List.of();
        long messageChars = 0; // Message#budgetChars summed (none for CLAUDE_CLI)
        long tailSeq = -1;
        boolean markerMiddle = false;
        List<Segment> shownSegments = List.of();
        Parity parity = new Parity(receiver, 0, 0);
        if (h.target() == Target.LOCAL) {
            SegmentBuilder.Layout layout = SegmentBuilder.build(state, plan, ready.pendingMissing(), layouts);
            // The manifest rendered above is the one for this budget: rendered once per hand-off.
            Trimmed trimmed = trim(layout, plan, budget, policy, state, manifest);
            if (policy.capsTokens()) {
                TokenMeasure measure = new TokenMeasure(tokenizers.require(policy.transcriptBudgetEncoding()));
                trimmed = capTokens(trimmed, layout, plan, budget, policy, state, measure);
            }
            manifest = trimmed.manifest();
            HeadTailTrim.Result transcript = trimmed.transcript();
            MessageWriter.Written written = MessageWriter.writeCounted(transcript.segments(), receiver);
            messages = written.messages();
            messageChars = written.budgetChars();
            tailSeq = transcript.tailSeq();
            markerMiddle = transcript.markerMiddle();
            shownSegments = transcript.segments();
            for (Segment s : transcript.segments()) {
                log.addAll(s.notes());
                if (s.kind() == Segment.Kind.STEP && s.step().outcome() == StepView.Outcome.CLEARED) {
                    log.add(new Truncation(TruncationKind.RESULT_CLEARED, s.step().seq(), s.step().seq(), 1,
                            Narration.CLEARED));
                }
            }
            String primary = state.primaryAgent();
            if (primary != null) {
                // R9: against the primary's own rendering of the same segments (the same budgets).
                parity = ParityCheck.parity(transcript.segments(), receiver, primary);
            }
        }
        log.addAll(brick.truncations());

        long brickChars = brick.text().length();
        long tokens = (messageChars + brickChars + framing.systemPrompt().length() + 3) / 4;
        List<EncodingTokenCount> counts = null;
        List<String> encodings = policy.tokenCountEncodingList();
        if (!encodings.isEmpty()) {
            counts = new ArrayList<>(encodings.size());
            for (String encoding : encodings) {
                Tokenizer t = tokenizers.require(encoding);
                counts.add(new EncodingTokenCount(encoding, TokenMeasure.ofMessages(messages, t), t.count(brick.text())));
            }
        }
        // Stable prefix (docs/rendering.md): against the receiver's last emitted LOCAL snapshot, kept in the state.
        PrefixPrint.Comparison prefix = null;
        if (h.target() == Target.LOCAL) {
            PrefixPrint previous = state.prefixPrint(receiver);
            if (previous != null || print) prefix = PrefixPrint.compare(messages, previous, tailSeq, markerMiddle);
        }
        Retention retention = new Retention(plan.expanded(), plan.inlined(),
                manifest == null ? List.of() : manifest.listedSeqs(), manifest == null ? 0 : manifest.unlisted(),
                plan.trailBytes());
        CallLedgerView calls = CallLedgerRenderer.render(state, policy, receiver, shownSegments,
                retention.manifestSeqs());
        Snapshot snapshot = new Snapshot(SessionKey.of(tenantId, sessionId).snapshotId(h.handoffId()), tenantId,
                sessionId, h.handoffId(), h.fromAgent(), receiver, h.target(), state.lastAppliedSeq(),
                state.turnCount(), ready.occurredAtMillis(), framing, brick.text(), messages, retention, log.list(),
                new Stats(messageChars, brickChars, tokens, counts, prefix == null ? null : prefix.stableChars()),
                parity, null, calls);
        return new Rendered(snapshot, prefix == null || !print ? null : prefix.print());
    }

    /** A transcript trimmed to one character budget, with the manifest rendered for that budget. */
    record Trimmed(int budget, Manifest.Rendered manifest, HeadTailTrim.Result transcript) {
    }

    static Trimmed trim(SegmentBuilder.Layout layout, RetentionPlan plan, int budget, Policy policy,
                        SessionState state) {
        Manifest.Rendered manifest = plan.hasManifest() ? Manifest.render(plan, manifestCap(policy, budget)) : null;
        return trim(layout, plan, budget, policy, state, manifest);
    }

    /** {@link #trim} with the manifest already rendered for {@code budget} (null when the plan has none). */
    static Trimmed trim(SegmentBuilder.Layout layout, RetentionPlan plan, int budget, Policy policy,
                        SessionState state, Manifest.Rendered manifest) {
        Segment manifestSegment = manifest == null ? null : Segment.baton(manifest.text(),
                new Truncation(TruncationKind.TRAIL_MANIFEST, manifestFrom(state, manifest),
                        newestManifested(state, plan), plan.manifestTotal(), manifest.header()));
        return new Trimmed(budget, manifest, HeadTailTrim.trim(layout, manifestSegment, budget, policy, state));
    }

    /**
     * The token cap (docs/rendering.md, "Token cap"): when the transcript trimmed to the character budget measures
     * more tokens than the cap, the largest character budget between the floor ({@code minTranscriptBudgetChars})
     * and the character budget whose transcript fits is found by bisection, and that transcript is used. The measure
     * is receiver-independent ({@link TokenMeasure}), so every receiver gets the same budget (R4) and the same
     * segments (R9). At the floor the floor wins, as it does for character budgets.
     */
    static Trimmed capTokens(Trimmed atBudget, SegmentBuilder.Layout layout, RetentionPlan plan, int budget,
                             Policy policy, SessionState state, TokenMeasure measure) {
        long cap = policy.transcriptBudgetTokens();
        if (measure.size(atBudget.transcript().segments()) <= cap) return atBudget;
        int floor = policy.minTranscriptBudgetChars();
        if (budget <= floor) return atBudget;
        int lo = floor; // fits, or is the floor anyway
        int hi = budget; // does not fit
        Trimmed best = null;
        while (hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            Trimmed t = trim(layout, plan, mid, policy, state);
            if (measure.size(t.transcript().segments()) <= cap) {
                lo = mid;
                best = t;
            } else {
                hi = mid;
            }
        }
        return best != null ? best : trim(layout, plan, floor, policy, state);
    }

    /** The manifest's cap: its own (default 4,000) but never more than a quarter of a small transcript budget. */
    static int manifestCap(Policy policy, int budget) {
        return Math.min(policy.manifestCapChars(), Math.max(budget / 4, 400));
    }

    /**
     * The newest manifested seq (§3: the range spans every turn the count includes): the newest manifest entry, or,
     * when every manifested turn is only counted, the seq before the oldest retained trail (they are all older).
     */
    static Long newestManifested(SessionState state, RetentionPlan plan) {
        if (!plan.manifestEntries().isEmpty()) return plan.manifestEntries().get(0).seq;
        List<dev.baton.engine.state.TrailEntry> trails = state.trails();
        return trails.isEmpty() ? state.lastAppliedSeq() : trails.get(trails.size() - 1).seq - 1;
    }

    /**
     * The oldest manifested seq: the oldest listed one when the manifest lists every turn it counts. When it does not
     * (its cap, or turns the state keeps only as a count), the unlisted turns are older than every listed one and the
     * bounded state does not keep their seqs, so the range starts at the session's first applied seq, which is the
     * same whether or not the state compacted (compaction is invisible).
     */
    static Long manifestFrom(SessionState state, Manifest.Rendered m) {
        if (m.unlisted() > 0 || m.listedSeqs().isEmpty()) return Math.max(state.firstAppliedSeq(), 0);
        return m.listedSeqs().get(m.listedSeqs().size() - 1);
    }
}
