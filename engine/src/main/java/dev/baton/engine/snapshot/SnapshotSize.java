package dev.baton.engine.snapshot;

import dev.baton.engine.policy.Policy;

/**
 * Upper bounds on the encoded size of a {@link Snapshot} (docs/contract.md, "Bounded records"), in bytes, for both
 * output formats. The bound is made of
 * <ul>
 *   <li>bytes per unit of text (a UTF-16 code unit of content, brick, framing prompt, tool name, arguments or marker):
 *       at most 3 in Avro (UTF-8) and 6 in JSON (a control character is written as a six-character escape);</li>
 *   <li>bytes per message ({@value #PER_MESSAGE}: role, an agent name of at most 64 characters, a tool-call id of
 *       at most 128, field names and framing), per tool call ({@value #PER_TOOL_CALL}: its id, field names), per
 *       truncation ({@value #PER_TRUNCATION}: kind, seqs, count, field names; the marker counts as text) and per
 *       retention seq ({@value #PER_SEQ});</li>
 *   <li>a fixed part ({@value #FIXED}: the ids of tenant, session, hand-off and agents, numbers, enums, names).</li>
 * </ul>
 * {@link #of(Snapshot, Encoding)} applies it to a rendered snapshot (what Baton checks before it writes one);
 * {@link #policyBound(Policy, Encoding)} is the part a policy decides (everything but the per-message overhead, which
 * depends on the session: a transcript of many tiny messages). The numbers are checked against the real encoders by
 * {@code SnapshotSizeTest} (topology module).
 */
public final class SnapshotSize {
    /** The output format, with the most bytes one unit of text can take in it. */
    public enum Encoding {
        AVRO(3), JSON(6);

        public final int bytesPerChar;

        Encoding(int bytesPerChar) {
            this.bytesPerChar = bytesPerChar;
        }
    }

    public static final int FIXED = 4_096;
    public static final int PER_MESSAGE = 288;
    public static final int PER_TOOL_CALL = 192;
    public static final int PER_TRUNCATION = 192;
    public static final int PER_SEQ = 21;
    /**
     * Bytes per call-ledger entry, all text included: a tool (64) and an agent (64) name, a call id (128), two
     * hashes (64 each), status, visibility, eleven numbers and field names (measured by {@code SnapshotSizeTest}).
     */
    public static final int PER_LEDGER_ENTRY = 1_024;
    /** Text of the markers a snapshot can hold beyond its budgets (missing ranges, cuts): 64 markers of 256. */
    public static final int MARKER_ALLOWANCE_CHARS = 64 * 256;
    /** Truncation entries a policy bound allows for (16 missing ranges + aggregate, middle, manifest, cuts). */
    public static final int TRUNCATIONS_ALLOWANCE = 64;
    /** Characters of an agent name that replaces {agent} in a framing prompt. */
    private static final int AGENT_CHARS = 64;

    private SnapshotSize() {
    }

    /** An upper bound of the encoded size of {@code s} (value only, without a wire-format header). */
    public static long of(Snapshot s, Encoding e) {
        long text = s.framing().systemPrompt().length() + s.brick().length();
        long other = FIXED;
        for (Message m : s.messages()) {
            other += PER_MESSAGE;
            text += m.content().length();
            for (var c : m.toolCalls()) {
                other += PER_TOOL_CALL;
                text += c.tool().length() + c.arguments().length();
            }
        }
        for (Truncation t : s.truncations()) {
            other += PER_TRUNCATION;
            text += t.marker() == null ? 0 : t.marker().length();
        }
        Retention r = s.retention();
        other += (long) PER_SEQ * (r.expandedSeqs().size() + r.inlinedSeqs().size() + r.manifestSeqs().size());
        if (s.callLedger() != null) other += (long) PER_LEDGER_ENTRY * (s.callLedger().entries().size() + 1);
        return other + text * e.bytesPerChar;
    }

    /**
     * The size a snapshot under {@code p} reaches before any per-message overhead: the transcript budget plus the
     * digest and manifest caps and a marker allowance as text, the larger brick budget, the framing prompts, the
     * retention lists (2 expanded, at most one inlined turn per 2 bytes of {@code inlineTrailBytes} since a trail
     * holds at least the arguments {@code {}}, one manifest entry per manifest character) and the truncations.
     */
    public static long policyBound(Policy p, Encoding e) {
        long text = (long) p.maxTranscriptBudget() + p.digestBudgetChars() + p.manifestCapChars()
                + MARKER_ALLOWANCE_CHARS
                + p.maxBrickBudget()
                + Math.max(prompt(p.ownerFramingPrompt()), prompt(p.continuityFramingPrompt()));
        long seqs = 2L + p.inlineTrailBytes() / 2 + p.manifestCapChars();
        long other = FIXED + seqs * PER_SEQ + (long) TRUNCATIONS_ALLOWANCE * PER_TRUNCATION
                + (long) PER_LEDGER_ENTRY * (p.callLedgerEntries() + 1L);
        return other + text * e.bytesPerChar;
    }

    private static long prompt(String template) {
        if (template == null) return 0;
        int agents = template.split("\\{agent}", -1).length - 1;
        return template.length() + (long) agents * AGENT_CHARS;
    }
}
