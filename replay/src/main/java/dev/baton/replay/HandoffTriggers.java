package dev.baton.replay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.engine.model.Identifiers;

/**
 * Synthetic hand-offs for {@code baton backfill} (eval sets: what a receiver <em>would</em> have got at points where
 * no hand-off happened), and deterministic session sampling.
 *
 * <ul>
 *   <li>{@code every:N}: after every turn whose {@code seq + 1} is a multiple of N;</li>
 *   <li>{@code error}: after every turn with a trail step of status {@code ERROR};</li>
 *   <li>{@code last}: once per session, after the end of the input (when every gap is settled);</li>
 *   <li>{@code seqs:FILE}: after the turns the file names, one per line: {@code tenant session seq [to_agent
 *       [target]]} (separated by commas, tabs or spaces; {@code #} starts a comment).</li>
 * </ul>
 *
 * A synthetic hand-off is an ordinary {@code Handoff} event sent right after its turn, with {@code as_of_seq} = that
 * turn's seq (so a turn held for a gap is waited for), {@code occurred_at} of that turn, {@code from_agent} the turn's
 * agent when it is an ASSISTANT or TOOL turn of an agent other than the receiver (else none: an agent does not hand off
 * to itself, and a null {@code from_agent} keeps R7's owner framing for a session that is all the receiver's own), and
 * the receiving agent and target given. Its id is
 * {@value #ID_PREFIX}{@code KIND:SEQ} ({@code seqs:SEQ:AGENT:TARGET}, {@code last}): the prefix is reserved while
 * triggers are on (a real hand-off whose id starts with it is dead-lettered {@code INVALID_ID} instead of being
 * replayed), so a synthetic id can never equal a real one. The snapshot of a synthetic hand-off has
 * {@code "synthetic": true}.
 */
public final class HandoffTriggers {

    /** Reserved: synthetic hand-off ids start with it, real ones may not (while triggers are on). */
    public static final String ID_PREFIX = dev.baton.engine.model.Identifiers.SYNTHETIC_HANDOFF_PREFIX;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SEPARATORS = Pattern.compile("[,\\t ]+");

    private final int every;
    private final boolean error;
    private final boolean last;
    private final Map<String, Map<Long, List<String[]>>> seqs;
    private final String toAgent;
    private final String target;

    private HandoffTriggers(int every, boolean error, boolean last, Map<String, Map<Long, List<String[]>>> seqs,
                            String toAgent, String target) {
        this.every = every;
        this.error = error;
        this.last = last;
        this.seqs = seqs;
        this.toAgent = toAgent;
        this.target = target;
    }

    /**
     * Parses {@code --handoff-at} specs; null when there are none.
     *
     * @param toAgent the receiving agent (required unless every spec is a seqs file naming its agents)
     * @param target  {@code LOCAL} or {@code CLAUDE_CLI}
     */
    public static HandoffTriggers parse(List<String> specs, String toAgent, String target) throws IOException {
        if (specs == null || specs.isEmpty()) {
            return null;
        }
        int every = 0;
        boolean error = false;
        boolean last = false;
        Map<String, Map<Long, List<String[]>>> seqs = new HashMap<>();
        String t = target == null ? "LOCAL" : target.toUpperCase(Locale.ROOT);
        if (!t.equals("LOCAL") && !t.equals("CLAUDE_CLI")) {
            throw usage("--handoff-target must be LOCAL or CLAUDE_CLI, not " + target);
        }
        if (toAgent != null && !Identifiers.isValidName(toAgent)) {
            throw usage("--handoff-to '" + toAgent + "' is not an agent name (1–64 characters of [A-Za-z0-9_-])");
        }
        boolean needsAgent = false;
        for (String spec : specs) {
            if (spec.startsWith("every:")) {
                try {
                    every = Integer.parseInt(spec.substring("every:".length()));
                } catch (NumberFormatException e) {
                    every = 0;
                }
                if (every <= 0) {
                    throw usage("--handoff-at every:N needs a whole number N > 0, not '" + spec + "'");
                }
                needsAgent = true;
            } else if (spec.equals("error")) {
                error = true;
                needsAgent = true;
            } else if (spec.equals("last")) {
                last = true;
                needsAgent = true;
            } else if (spec.startsWith("seqs:")) {
                needsAgent |= readSeqs(Path.of(spec.substring("seqs:".length())), seqs, t);
            } else {
                throw usage("--handoff-at takes every:N, error, last or seqs:FILE, not '" + spec + "'");
            }
        }
        if (needsAgent && toAgent == null) {
            throw usage("--handoff-at needs --handoff-to AGENT (the receiving agent of the synthetic hand-offs)");
        }
        return new HandoffTriggers(every, error, last, seqs, toAgent, t);
    }

    /** Reads a seqs file; true when some line leaves the agent to {@code --handoff-to}. */
    private static boolean readSeqs(Path file, Map<String, Map<Long, List<String[]>>> seqs, String defaultTarget)
        throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw usage("no such seqs file: " + file);
        }
        boolean needsAgent = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String text = (hash >= 0 ? line.substring(0, hash) : line).trim();
            if (text.isEmpty()) {
                continue;
            }
            String[] f = SEPARATORS.split(text);
            String where = file + ":" + (i + 1) + ": ";
            if (f.length < 3 || f.length > 5) {
                throw usage(where + "expected: tenant session seq [to_agent [target]]");
            }
            if (!Identifiers.isValidId(f[0]) || !Identifiers.isValidId(f[1])) {
                throw usage(where + "tenant and session must be ids (1–128 characters of [A-Za-z0-9._:-])");
            }
            long seq;
            try {
                seq = Long.parseLong(f[2]);
            } catch (NumberFormatException e) {
                seq = -1;
            }
            if (seq < 0) {
                throw usage(where + "seq must be a whole number >= 0, not '" + f[2] + "'");
            }
            String agent = f.length > 3 ? f[3] : null;
            if (agent != null && !Identifiers.isValidName(agent)) {
                throw usage(where + "'" + agent + "' is not an agent name");
            }
            String target = f.length > 4 ? f[4].toUpperCase(Locale.ROOT) : defaultTarget;
            if (!target.equals("LOCAL") && !target.equals("CLAUDE_CLI")) {
                throw usage(where + "target must be LOCAL or CLAUDE_CLI, not '" + f[4] + "'");
            }
            needsAgent |= agent == null;
            seqs.computeIfAbsent(f[0] + "/" + f[1], k -> new HashMap<>())
                .computeIfAbsent(seq, k -> new ArrayList<>()).add(new String[] {agent, target});
        }
        return needsAgent;
    }

    private static AppFailure usage(String message) {
        return new AppFailure(ExitCodes.USAGE, message);
    }

    /** True when {@code last} is on: the runner keeps what it needs per session. */
    boolean last() {
        return last;
    }

    /** What a turn line tells the triggers. */
    record Turn(String tenantId, String sessionId, String occurredAt, long seq, String agent, String role,
                boolean hasError) {
    }

    /** The synthetic hand-off events to send right after this turn, in a fixed order. */
    List<byte[]> after(Turn turn) {
        List<byte[]> out = new ArrayList<>(1);
        String from = turn.role() != null && (turn.role().equalsIgnoreCase("ASSISTANT")
            || turn.role().equalsIgnoreCase("TOOL")) ? turn.agent() : null;
        if (every > 0 && (turn.seq() + 1) % every == 0) {
            out.add(event(turn.tenantId(), turn.sessionId(), turn.occurredAt(), "every:" + turn.seq(), from, toAgent,
                target, turn.seq()));
        }
        if (error && turn.hasError()) {
            out.add(event(turn.tenantId(), turn.sessionId(), turn.occurredAt(), "error:" + turn.seq(), from, toAgent,
                target, turn.seq()));
        }
        Map<Long, List<String[]>> bySeq = seqs.get(turn.tenantId() + "/" + turn.sessionId());
        List<String[]> named = bySeq == null ? null : bySeq.get(turn.seq());
        if (named != null) {
            for (String[] n : named) {
                String agent = n[0] == null ? toAgent : n[0];
                out.add(event(turn.tenantId(), turn.sessionId(), turn.occurredAt(),
                    "seqs:" + turn.seq() + ":" + agent + ":" + n[1], from, agent, n[1], turn.seq()));
            }
        }
        return out;
    }

    /** The {@code last} hand-off of a session (sent after its settle: everything it will ever hold is applied). */
    byte[] lastOf(String tenantId, String sessionId, String occurredAt, String fromAgent) {
        return event(tenantId, sessionId, occurredAt, "last", fromAgent, toAgent, target, null);
    }

    /** True for an id the triggers could give: a real hand-off may not use it. */
    static boolean reserved(String handoffId) {
        return handoffId != null && handoffId.startsWith(ID_PREFIX);
    }

    private static byte[] event(String tenant, String session, String occurredAt, String what, String from,
                                String to, String target, Long asOfSeq) {
        String id = ID_PREFIX + what;
        ObjectNode e = JSON.createObjectNode();
        e.put("event_id", id);
        e.put("tenant_id", tenant);
        e.put("session_id", session);
        e.put("occurred_at", occurredAt);
        ObjectNode h = e.putObject("handoff");
        h.put("handoff_id", id);
        if (from != null && !from.equals(to)) {
            h.put("from_agent", from);
        }
        h.put("to_agent", to);
        h.put("target", target);
        if (asOfSeq != null) {
            h.put("as_of_seq", asOfSeq);
        }
        return e.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Deterministic session sampling: a session is in when the first 8 bytes of SHA-256 of its key
     * ({@code tenant/session}, UTF-8), read as an unsigned fraction of 2^64, are below {@code fraction}.
     */
    public static boolean sampled(String sessionKey, double fraction) {
        if (fraction >= 1.0) {
            return true;
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(sessionKey.getBytes(StandardCharsets.UTF_8));
            long top = 0;
            for (int i = 0; i < 8; i++) {
                top = (top << 8) | (d[i] & 0xFF);
            }
            double unit = (top >>> 11) * 0x1.0p-53; // the top 53 bits as a number in [0, 1)
            return unit < fraction;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    /** For the README's worked example and the tests: a readable summary. */
    @Override
    public String toString() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("every", every);
        m.put("error", error);
        m.put("last", last);
        m.put("seqs", seqs.size());
        m.put("to", toAgent);
        m.put("target", target);
        return m.toString();
    }
}
