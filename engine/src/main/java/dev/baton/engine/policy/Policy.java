package dev.baton.engine.policy;

/**
 * Every budget, cap, wait and limit of the contract (docs/contract.md), as one immutable value. {@link #defaults()}
 * holds the contract's defaults; a tenant's {@code TenantPolicy} overrides any subset; a hand-off can only lower the
 * transcript budget ({@link #transcriptBudgetFor(Integer)}).
 *
 * <p>Characters are UTF-16 code units (Java {@code String.length()}); bytes are UTF-8.
 */
public record Policy(
        /* R4: transcript budget, the tenant's maximum (a hand-off can only lower it). */
        int transcriptBudgetChars,
        /* R5: budgets below this are raised to it. */
        int minTranscriptBudgetChars,
        /* R5: the middle digest is used only when it fits this many characters. */
        int digestBudgetChars,
        /* R3: how many newest trail-bearing turns are expanded. */
        int expandedTrailTurns,
        /* R3: cumulative UTF-8 trail bytes inlined after the expanded turns. */
        int inlineTrailBytes,
        /* R3: the manifest message's own cap. */
        int manifestCapChars,
        /* R6: brick budget for LOCAL targets. */
        int brickBudgetLocalChars,
        /* R6: brick budget for CLAUDE_CLI targets. */
        int brickBudgetCliChars,
        /* R6: a brick result keeps this many characters. */
        int brickResultCapChars,
        /* R6: task excerpt length. */
        int brickTaskChars,
        /* R6: brief excerpt length. */
        int brickBriefChars,
        /* R6: at most this many agents on the session line. */
        int brickMaxAgents,
        /* §2: a gap is held at most this long (ms of wall-clock, by punctuator) before it is recorded missing. */
        long gapWaitMillis,
        /* §2: held turns bound, in turns. */
        int maxHeldTurns,
        /* §2: held turns bound, in UTF-8 bytes of their content. */
        long maxHeldBytes,
        /* §2: a hand-off waits at most this long for its as_of_seq. */
        long handoffWaitMillis,
        /* §2: at most this many hand-offs wait per session; past it the oldest is emitted at once. */
        int maxWaitingHandoffs,
        /* §2: hand-off ids remembered per session. */
        int rememberedHandoffIds,
        /* §2: open legacy calls remembered per session (calls whose TOOL answer has not arrived). */
        int maxOpenLegacyCalls,
        /* §3: newest missing ranges kept individually (older ones aggregate into one entry). */
        int missingRangesKept,
        /* §2: a closed session's state is deleted this long after Closed. */
        long closedGraceMillis,
        /* Idle sessions (no event) expire after this long. */
        long idleTtlMillis,
        /* §2: records over this many bytes are dead-lettered OVERSIZED. */
        int maxRecordBytes,
        /* R7: system prompt when the conversation is the receiver's own from the start. {agent} is replaced. */
        String ownerFramingPrompt,
        /* R7: system prompt for continuity. {agent} is replaced. */
        String continuityFramingPrompt,
        /* R4/R5: transcript cap in tokens of transcriptBudgetEncoding, besides characters (the smaller wins); 0: none. */
        int transcriptBudgetTokens,
        /* The encoding transcriptBudgetTokens counts in (e.g. o200k_base, cl100k_base). */
        String transcriptBudgetEncoding,
        /* Encodings whose exact token counts go into stats.token_counts, comma-separated; empty: no counting. */
        String tokenCountEncodings,
        /* R5 with steps (docs/rendering.md, "Trim step"): the tail's first turn moves by at least this many
           characters at a time, so that hand-offs in a row share their prefix; 0: off (the longest tail). */
        int trimStepChars,
        /* Receipts: a snapshot without a receipt this long (wall-clock ms) after it was written counts as unacknowledged. */
        long receiptTimeoutMillis,
        // ---- issue 24, call ledger
        /* Call ledger: the newest this many entries (groups of identical calls) are kept; 0: no ledger. */
        int callLedgerEntries,
        /* Side-effecting tools, comma-separated globs (* and ?): their calls are listed as done in the brick. */
        String sideEffectTools) {

    public static final String DEFAULT_OWNER_PROMPT =
            "You are {agent}. This conversation is yours from the start: every turn in it is your own work."
                    + " Continue the task from where the conversation ends.";
    public static final String DEFAULT_CONTINUITY_PROMPT =
            "You are {agent}. You have the complete conversation so far, including tool activity: tool calls and"
                    + " results made by other agents appear as narrated system lines, and ranges that were cut are"
                    + " marked. Continue as the owner of this work, without recapping unless asked. The orientation"
                    + " below is an index to the conversation; the conversation itself is the ground truth.";

    /** The encoding of a token cap that names none: the one OpenAI's current models use. */
    public static final String DEFAULT_TOKEN_ENCODING = "o200k_base";

    /** Receipts: how long a hand-off may stay unacknowledged before it counts as overdue (10 minutes). */
    public static final long DEFAULT_RECEIPT_TIMEOUT_MILLIS = 600_000L;
    /** Call-ledger entries kept by default (docs/rendering.md, "Call ledger"). */
    public static final int DEFAULT_CALL_LEDGER_ENTRIES = 64;

    private static final Policy DEFAULTS = new Policy(
            400_000, 2_000, 4_000,
            2, 163_840, 4_000,
            3_000, 12_000, 1_500, 500, 1_000, 8,
            30_000L, 1_000, 8L * 1024 * 1024,
            30_000L, 100, 10_000, 1_000, 16,
            3_600_000L, 7L * 24 * 3_600_000L, 1024 * 1024,
            DEFAULT_OWNER_PROMPT, DEFAULT_CONTINUITY_PROMPT,
            0, DEFAULT_TOKEN_ENCODING, "",
            0, DEFAULT_RECEIPT_TIMEOUT_MILLIS, DEFAULT_CALL_LEDGER_ENTRIES, "");


    /** True when {@code tool} matches one of the {@code sideEffectTools} patterns. */
    public boolean isSideEffecting(String tool) {
        return ToolPatterns.matchesAny(sideEffectTools, tool);
    }

    /** True when the policy names side-effecting tools (the brick lists their calls as done). */
    public boolean listsSideEffects() {
        return sideEffectTools != null && !sideEffectTools.isBlank();
    }

    /** The contract's defaults. */
    public static Policy defaults() {
        return DEFAULTS;
    }

    /** The effective transcript budget of a hand-off: lowered (never raised) by it, then floored (R4, R5). */
    public int transcriptBudgetFor(Integer handoffBudget) {
        int b = transcriptBudgetChars;
        if (handoffBudget != null && handoffBudget < b) b = handoffBudget;
        return Math.max(b, minTranscriptBudgetChars);
    }

    /** Brick budgets below this are raised to it (docs/rendering.md, "Brick"). */
    public static final int MIN_BRICK_BUDGET_CHARS = 1_000;

    /**
     * The largest brick any hand-off of this tenant can get: the larger of the two brick budgets, raised to
     * {@link #MIN_BRICK_BUDGET_CHARS} like the brick itself does (what state must keep within the brick's reach).
     */
    public int maxBrickBudget() {
        return Math.max(MIN_BRICK_BUDGET_CHARS, Math.max(brickBudgetLocalChars, brickBudgetCliChars));
    }

    /** The largest transcript budget any hand-off of this tenant can get (what state must keep). */
    public int maxTranscriptBudget() {
        return Math.max(transcriptBudgetChars, minTranscriptBudgetChars);
    }

    /** True when the transcript is capped in tokens as well as in characters. */
    public boolean capsTokens() {
        return transcriptBudgetTokens > 0;
    }

    /** The encodings of {@code tokenCountEncodings}, in order, without blanks and repeats (empty: no counting). */
    public java.util.List<String> tokenCountEncodingList() {
        if (tokenCountEncodings == null || tokenCountEncodings.isBlank()) return java.util.List.of();
        java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>();
        for (String e : tokenCountEncodings.split(",")) {
            String t = e.strip();
            if (!t.isEmpty()) out.add(t);
        }
        return java.util.List.copyOf(out);
    }

    /** Every encoding this policy names (the cap's, capped or not, and the counted ones): what a decoder checks. */
    public java.util.Set<String> tokenEncodingsUsed() {
        java.util.Set<String> out = new java.util.TreeSet<>(tokenCountEncodingList());
        if (transcriptBudgetEncoding != null) out.add(transcriptBudgetEncoding);
        else if (capsTokens()) out.add("null");
        return out;
    }

    /**
     * Everything wrong with this policy, in the order of {@link PolicyField}, or an empty list when it is valid: the
     * one check of a policy, whether it is the default policy of the configuration or a tenant's from the policies
     * topic. A value is out of bounds ({@link PolicyField#min()}: sizes, budgets and counts that must exist are
     * &gt; 0, every other number &gt;= 0; text is not null), or an encoding (token cap or counts) is one that
     * {@code tokenizers} does not know.
     */
    public java.util.List<String> problems(dev.baton.engine.tokens.Tokenizers tokenizers) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (PolicyField f : PolicyField.values()) {
            String p = f.problem(this);
            if (p != null) out.add(p);
        }
        java.util.List<String> unknown = new java.util.ArrayList<>();
        for (String e : tokenEncodingsUsed()) {
            if (tokenizers.get(e) == null) unknown.add(dev.baton.engine.model.Excerpt.quote(e));
        }
        if (!unknown.isEmpty()) {
            out.add("unknown token encoding(s) " + String.join(", ", unknown) + "; expected one of "
                    + String.join(", ", tokenizers.encodings()));
        }
        return out;
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    /** Mutable builder; every setter keeps the other values. */
    public static final class Builder {
        public int transcriptBudgetTokens, trimStepChars;
        public String transcriptBudgetEncoding, tokenCountEncodings;
        public int callLedgerEntries;
        public String sideEffectTools;
        public int transcriptBudgetChars, minTranscriptBudgetChars, digestBudgetChars, expandedTrailTurns,
                inlineTrailBytes, manifestCapChars, brickBudgetLocalChars, brickBudgetCliChars, brickResultCapChars,
                brickTaskChars, brickBriefChars, brickMaxAgents, maxHeldTurns, maxWaitingHandoffs,
                rememberedHandoffIds, maxOpenLegacyCalls, missingRangesKept, maxRecordBytes;
        public long gapWaitMillis, maxHeldBytes, handoffWaitMillis, closedGraceMillis, idleTtlMillis;
        public String ownerFramingPrompt, continuityFramingPrompt;
        public long receiptTimeoutMillis;

        Builder(Policy p) {
            transcriptBudgetChars = p.transcriptBudgetChars;
            minTranscriptBudgetChars = p.minTranscriptBudgetChars;
            digestBudgetChars = p.digestBudgetChars;
            expandedTrailTurns = p.expandedTrailTurns;
            inlineTrailBytes = p.inlineTrailBytes;
            manifestCapChars = p.manifestCapChars;
            brickBudgetLocalChars = p.brickBudgetLocalChars;
            brickBudgetCliChars = p.brickBudgetCliChars;
            brickResultCapChars = p.brickResultCapChars;
            brickTaskChars = p.brickTaskChars;
            brickBriefChars = p.brickBriefChars;
            brickMaxAgents = p.brickMaxAgents;
            gapWaitMillis = p.gapWaitMillis;
            maxHeldTurns = p.maxHeldTurns;
            maxHeldBytes = p.maxHeldBytes;
            handoffWaitMillis = p.handoffWaitMillis;
            maxWaitingHandoffs = p.maxWaitingHandoffs;
            rememberedHandoffIds = p.rememberedHandoffIds;
            maxOpenLegacyCalls = p.maxOpenLegacyCalls;
            missingRangesKept = p.missingRangesKept;
            closedGraceMillis = p.closedGraceMillis;
            idleTtlMillis = p.idleTtlMillis;
            maxRecordBytes = p.maxRecordBytes;
            ownerFramingPrompt = p.ownerFramingPrompt;
            continuityFramingPrompt = p.continuityFramingPrompt;
            transcriptBudgetTokens = p.transcriptBudgetTokens;
            transcriptBudgetEncoding = p.transcriptBudgetEncoding;
            tokenCountEncodings = p.tokenCountEncodings;
            trimStepChars = p.trimStepChars;
            receiptTimeoutMillis = p.receiptTimeoutMillis;
            callLedgerEntries = p.callLedgerEntries;
            sideEffectTools = p.sideEffectTools;
        }

        public Builder transcriptBudgetChars(int v) { transcriptBudgetChars = v; return this; }
        public Builder minTranscriptBudgetChars(int v) { minTranscriptBudgetChars = v; return this; }
        public Builder digestBudgetChars(int v) { digestBudgetChars = v; return this; }
        public Builder expandedTrailTurns(int v) { expandedTrailTurns = v; return this; }
        public Builder inlineTrailBytes(int v) { inlineTrailBytes = v; return this; }
        public Builder manifestCapChars(int v) { manifestCapChars = v; return this; }
        public Builder brickBudgetLocalChars(int v) { brickBudgetLocalChars = v; return this; }
        public Builder brickBudgetCliChars(int v) { brickBudgetCliChars = v; return this; }
        public Builder brickResultCapChars(int v) { brickResultCapChars = v; return this; }
        public Builder brickTaskChars(int v) { brickTaskChars = v; return this; }
        public Builder brickBriefChars(int v) { brickBriefChars = v; return this; }
        public Builder brickMaxAgents(int v) { brickMaxAgents = v; return this; }
        public Builder gapWaitMillis(long v) { gapWaitMillis = v; return this; }
        public Builder maxHeldTurns(int v) { maxHeldTurns = v; return this; }
        public Builder maxHeldBytes(long v) { maxHeldBytes = v; return this; }
        public Builder handoffWaitMillis(long v) { handoffWaitMillis = v; return this; }
        public Builder maxWaitingHandoffs(int v) { maxWaitingHandoffs = v; return this; }
        public Builder rememberedHandoffIds(int v) { rememberedHandoffIds = v; return this; }
        public Builder maxOpenLegacyCalls(int v) { maxOpenLegacyCalls = v; return this; }
        public Builder missingRangesKept(int v) { missingRangesKept = v; return this; }
        public Builder closedGraceMillis(long v) { closedGraceMillis = v; return this; }
        public Builder idleTtlMillis(long v) { idleTtlMillis = v; return this; }
        public Builder maxRecordBytes(int v) { maxRecordBytes = v; return this; }
        public Builder ownerFramingPrompt(String v) { ownerFramingPrompt = v; return this; }
        public Builder continuityFramingPrompt(String v) { continuityFramingPrompt = v; return this; }
        public Builder transcriptBudgetTokens(int v) { transcriptBudgetTokens = v; return this; }
        public Builder transcriptBudgetEncoding(String v) { transcriptBudgetEncoding = v; return this; }
        public Builder tokenCountEncodings(String v) { tokenCountEncodings = v; return this; }
        public Builder trimStepChars(int v) { trimStepChars = v; return this; }
        public Builder receiptTimeoutMillis(long v) { receiptTimeoutMillis = v; return this; }
        public Builder callLedgerEntries(int v) { callLedgerEntries = v; return this; }
        public Builder sideEffectTools(String v) { sideEffectTools = v; return this; }

        public Policy build() {
            return new Policy(transcriptBudgetChars, minTranscriptBudgetChars, digestBudgetChars, expandedTrailTurns,
                    inlineTrailBytes, manifestCapChars, brickBudgetLocalChars, brickBudgetCliChars,
                    brickResultCapChars, brickTaskChars, brickBriefChars, brickMaxAgents, gapWaitMillis,
                    maxHeldTurns, maxHeldBytes, handoffWaitMillis, maxWaitingHandoffs, rememberedHandoffIds,
                    maxOpenLegacyCalls, missingRangesKept, closedGraceMillis, idleTtlMillis, maxRecordBytes,
                    ownerFramingPrompt, continuityFramingPrompt, transcriptBudgetTokens, transcriptBudgetEncoding,
                    tokenCountEncodings, trimStepChars, receiptTimeoutMillis, callLedgerEntries,
                    sideEffectTools);
        }
    }
}
