package dev.baton.engine.policy;

import java.util.Locale;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The one table of policy fields: for every {@link Policy} value its name (the TenantPolicy field and the
 * {@code baton.policy.*} key), type, bounds and meaning; the default is {@link Policy#defaults()}'s value. The
 * configuration (file and environment), the policies topic's decoder, the docs' settings table and
 * {@link Policy#problems} all read this table, so that a default policy and a tenant's policy are read and checked
 * alike.
 */
public enum PolicyField {
    TRANSCRIPT_BUDGET_CHARS(Type.INT, 1, Policy::transcriptBudgetChars, (b, v) -> b.transcriptBudgetChars((int) (long) v),
            "Transcript budget in characters: the tenant's maximum (a hand-off can only lower it)."),
    MIN_TRANSCRIPT_BUDGET_CHARS(Type.INT, 1, Policy::minTranscriptBudgetChars,
            (b, v) -> b.minTranscriptBudgetChars((int) (long) v), "Transcript budgets below this are raised to it."),
    DIGEST_BUDGET_CHARS(Type.INT, 0, Policy::digestBudgetChars, (b, v) -> b.digestBudgetChars((int) (long) v),
            "The middle digest is used only when it fits this many characters."),
    EXPANDED_TRAIL_TURNS(Type.INT, 0, Policy::expandedTrailTurns, (b, v) -> b.expandedTrailTurns((int) (long) v),
            "How many of the newest trail-bearing turns are expanded."),
    INLINE_TRAIL_BYTES(Type.INT, 0, Policy::inlineTrailBytes, (b, v) -> b.inlineTrailBytes((int) (long) v),
            "Cumulative UTF-8 trail bytes inlined after the expanded turns."),
    MANIFEST_CAP_CHARS(Type.INT, 1, Policy::manifestCapChars, (b, v) -> b.manifestCapChars((int) (long) v),
            "The manifest message's own cap, in characters."),
    BRICK_BUDGET_LOCAL_CHARS(Type.INT, 1, Policy::brickBudgetLocalChars,
            (b, v) -> b.brickBudgetLocalChars((int) (long) v), "Brick budget of LOCAL targets, in characters."),
    BRICK_BUDGET_CLI_CHARS(Type.INT, 1, Policy::brickBudgetCliChars, (b, v) -> b.brickBudgetCliChars((int) (long) v),
            "Brick budget of CLAUDE_CLI targets, in characters."),
    BRICK_RESULT_CAP_CHARS(Type.INT, 1, Policy::brickResultCapChars, (b, v) -> b.brickResultCapChars((int) (long) v),
            "A brick result keeps this many characters."),
    BRICK_TASK_CHARS(Type.INT, 1, Policy::brickTaskChars, (b, v) -> b.brickTaskChars((int) (long) v),
            "Length of the brick's task excerpt, in characters."),
    BRICK_BRIEF_CHARS(Type.INT, 1, Policy::brickBriefChars, (b, v) -> b.brickBriefChars((int) (long) v),
            "Length of the brick's brief excerpt, in characters."),
    BRICK_MAX_AGENTS(Type.INT, 1, Policy::brickMaxAgents, (b, v) -> b.brickMaxAgents((int) (long) v),
            "At most this many agents on the brick's session line."),
    GAP_WAIT_MILLIS(Type.LONG, 0, Policy::gapWaitMillis, (b, v) -> b.gapWaitMillis((long) v),
            "A gap in seq is held at most this long (wall-clock ms) before it is recorded missing."),
    MAX_HELD_TURNS(Type.INT, 0, Policy::maxHeldTurns, (b, v) -> b.maxHeldTurns((int) (long) v),
            "Turns held behind a gap, at most this many."),
    MAX_HELD_BYTES(Type.LONG, 0, Policy::maxHeldBytes, (b, v) -> b.maxHeldBytes((long) v),
            "Turns held behind a gap, at most this many UTF-8 bytes of content."),
    HANDOFF_WAIT_MILLIS(Type.LONG, 0, Policy::handoffWaitMillis, (b, v) -> b.handoffWaitMillis((long) v),
            "A hand-off waits at most this long (wall-clock ms) for its as_of_seq."),
    MAX_WAITING_HANDOFFS(Type.INT, 1, Policy::maxWaitingHandoffs, (b, v) -> b.maxWaitingHandoffs((int) (long) v),
            "At most this many hand-offs wait per session; past it the oldest is emitted at once."),
    REMEMBERED_HANDOFF_IDS(Type.INT, 1, Policy::rememberedHandoffIds,
            (b, v) -> b.rememberedHandoffIds((int) (long) v), "Hand-off ids remembered per session."),
    MAX_OPEN_LEGACY_CALLS(Type.INT, 0, Policy::maxOpenLegacyCalls, (b, v) -> b.maxOpenLegacyCalls((int) (long) v),
            "Open legacy calls (calls whose TOOL answer has not arrived) remembered per session."),
    MISSING_RANGES_KEPT(Type.INT, 0, Policy::missingRangesKept, (b, v) -> b.missingRangesKept((int) (long) v),
            "Newest missing ranges kept one by one; older ones aggregate into one entry."),
    CLOSED_GRACE_MILLIS(Type.LONG, 0, Policy::closedGraceMillis, (b, v) -> b.closedGraceMillis((long) v),
            "A closed session's state is deleted this long (ms) after Closed."),
    IDLE_TTL_MILLIS(Type.LONG, 1, Policy::idleTtlMillis, (b, v) -> b.idleTtlMillis((long) v),
            "A session without events expires after this long (ms)."),
    MAX_RECORD_BYTES(Type.INT, 1, Policy::maxRecordBytes, (b, v) -> b.maxRecordBytes((int) (long) v),
            "Input records larger than this many bytes are dead-lettered OVERSIZED."),
    OWNER_FRAMING_PROMPT(Type.TEXT, 0, Policy::ownerFramingPrompt, (b, v) -> b.ownerFramingPrompt((String) v),
            "System prompt when the conversation is the receiver's own from the start; {agent} is replaced."),
    CONTINUITY_FRAMING_PROMPT(Type.TEXT, 0, Policy::continuityFramingPrompt,
            (b, v) -> b.continuityFramingPrompt((String) v), "System prompt for continuity; {agent} is replaced."),
    TRANSCRIPT_BUDGET_TOKENS(Type.INT, 0, Policy::transcriptBudgetTokens,
            (b, v) -> b.transcriptBudgetTokens((int) (long) v),
            "Transcript cap in tokens of the encoding below, besides characters (the smaller wins); 0: no token cap."),
    TRANSCRIPT_BUDGET_ENCODING(Type.TEXT, 0, Policy::transcriptBudgetEncoding,
            (b, v) -> b.transcriptBudgetEncoding((String) v),
            "The encoding of the token cap: o200k_base, cl100k_base, p50k_base, p50k_edit or r50k_base."),
    TOKEN_COUNT_ENCODINGS(Type.TEXT, 0, Policy::tokenCountEncodings, (b, v) -> b.tokenCountEncodings((String) v),
            "Comma-separated encodings counted exactly into stats.token_counts; empty: no counting."),
    // Issue 22 (stable prefix): trimming in steps, off by default.
    TRIM_STEP_CHARS(Type.INT, 0, Policy::trimStepChars, (b, v) -> b.trimStepChars((int) (long) v),
            "Trim in steps: once over budget, the tail's first turn moves by at least this many characters at a time "
                    + "(hand-offs in a row share their prefix; the tail is up to this much shorter); 0: off."),
    // Hand-off receipts (issue 24, part 2)
    RECEIPT_TIMEOUT_MILLIS(Type.LONG, 1, Policy::receiptTimeoutMillis, (b, v) -> b.receiptTimeoutMillis((long) v),
            "A snapshot without a receipt this long (wall-clock ms) after it was written counts as unacknowledged."),
    // ---- issue 24, call ledger
    CALL_LEDGER_ENTRIES(Type.INT, 0, Policy::callLedgerEntries, (b, v) -> b.callLedgerEntries((int) (long) v),
            "Call ledger: the newest this many entries (identical calls grouped) are kept, older ones counted; 0: none."),
    SIDE_EFFECT_TOOLS(Type.TEXT, 0, Policy::sideEffectTools, (b, v) -> b.sideEffectTools((String) v),
            "Comma-separated tool-name globs (* and ?) of side-effecting tools, listed as done in the brick; empty: none.");

    /** How a field's value is written: a whole number that fits an {@code int} or a {@code long}, or text. */
    public enum Type { INT, LONG, TEXT }

    /** Fields that are Baton's own extensions (token caps and counts, trim steps, receipts, the call ledger), not the contract's. */
    public static final java.util.Set<PolicyField> EXTENSIONS =
            java.util.EnumSet.of(TRANSCRIPT_BUDGET_TOKENS, TRANSCRIPT_BUDGET_ENCODING, TOKEN_COUNT_ENCODINGS,
                    TRIM_STEP_CHARS, RECEIPT_TIMEOUT_MILLIS, CALL_LEDGER_ENTRIES, SIDE_EFFECT_TOOLS);

    private final Type type;
    private final long min;
    private final Function<Policy, Object> getter;
    private final BiConsumer<Policy.Builder, Object> setter;
    private final String doc;

    PolicyField(Type type, long min, Function<Policy, Object> getter, BiConsumer<Policy.Builder, Object> setter,
                String doc) {
        this.type = type;
        this.min = min;
        this.getter = getter;
        this.setter = setter;
        this.doc = doc;
    }

    /** The TenantPolicy field's name and the {@code baton.policy.*} key's tail, e.g. {@code transcript_budget_chars}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    public Type type() {
        return type;
    }

    /** The smallest value a numeric field may take: 1 for sizes, budgets and counts that must exist, else 0. */
    public long min() {
        return min;
    }

    /** The largest value a numeric field may take. */
    public long max() {
        return type == Type.INT ? Integer.MAX_VALUE : Long.MAX_VALUE;
    }

    public String doc() {
        return doc;
    }

    /** The contract's default ({@link Policy#defaults()}). */
    public Object defaultValue() {
        return getter.apply(Policy.defaults());
    }

    /** This field's value in {@code policy}: an Integer, a Long or a String. */
    public Object get(Policy policy) {
        return getter.apply(policy);
    }

    /**
     * Sets this field on {@code builder}: a {@link Number} for numeric fields (taken as a long, out-of-range values
     * are caught by {@link Policy#problems}; a number beyond {@code int} for an INT field is refused here), text for
     * text fields.
     *
     * @throws IllegalArgumentException when {@code value} is not of this field's type
     */
    public void set(Policy.Builder builder, Object value) {
        if (type == Type.TEXT) {
            if (!(value instanceof CharSequence s)) throw wrongType(value, "text");
            setter.accept(builder, s.toString());
            return;
        }
        if (!(value instanceof Integer || value instanceof Long)) throw wrongType(value, "a whole number");
        long n = ((Number) value).longValue();
        if (type == Type.INT && (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(key() + " is " + n + "; must be <= " + Integer.MAX_VALUE);
        }
        setter.accept(builder, n);
    }

    private IllegalArgumentException wrongType(Object value, String expected) {
        return new IllegalArgumentException(key() + " is " + (value == null ? "null" : value.getClass().getSimpleName())
                + "; must be " + expected);
    }

    /** Why {@code policy}'s value of this field is out of bounds, or null when it is within them. */
    String problem(Policy policy) {
        Object v = get(policy);
        if (type == Type.TEXT) return v == null ? key() + " is null; must be text" : null;
        long n = ((Number) v).longValue();
        return n < min ? key() + " is " + n + "; must be " + (min == 1 ? "> 0" : ">= " + min) : null;
    }
}
