package dev.baton.processor;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * One session's record of the snapshots Baton wrote and the receipts their receivers sent (store
 * {@value HandoffReceiptProcessor#LEDGER_STORE}, keyed by session like the session state, beside it). Bounded: the
 * newest {@value #MAX_SNAPSHOTS} snapshots (an older one is forgotten, and a receipt for it is then an unknown
 * snapshot) and at most {@value #MAX_HELD} receipts that arrived before their snapshot.
 *
 * <p>Stored in its own small format (a version byte, then the fields in order), separate from the session state's
 * formats: this store is read by nothing else.
 */
public final class HandoffLedger {
    public static final int MAX_SNAPSHOTS = 64;
    public static final int MAX_HELD = 16;
    static final int FORMAT = 1;

    /** A snapshot Baton wrote, and what its receipts said. Mutable: the processor updates it in place. */
    public static final class Entry {
        final SnapshotEmitted snapshot;
        final long emittedAtMillis;
        boolean overdue;
        long acknowledgedAtMillis = -1;
        String receiverModel;
        Long budgetTokens;
        long startedAtMillis = -1;
        Receipt.Result outcome;
        Long tokensSpent;

        Entry(SnapshotEmitted snapshot, long emittedAtMillis) {
            this.snapshot = snapshot;
            this.emittedAtMillis = emittedAtMillis;
        }

        public SnapshotEmitted snapshot() {
            return snapshot;
        }

        public boolean acknowledged() {
            return acknowledgedAtMillis >= 0;
        }
    }

    /** A receipt that came before its snapshot, with the wall-clock time it arrived. */
    public record Held(Receipt receipt, long arrivedAtMillis) {
    }

    final List<Entry> entries = new ArrayList<>();
    final List<Held> held = new ArrayList<>();
    /** The brick line of the newest escalation whose outcome was reported, or null. */
    String previousOutcome;
    long lastActivityMillis;

    public Entry find(String handoffId) {
        for (int i = entries.size() - 1; i >= 0; i--) {
            if (entries.get(i).snapshot.handoffId().equals(handoffId)) return entries.get(i);
        }
        return null;
    }

    /** Adds the snapshot (replacing an entry of the same id); returns the entry the bound pushed out, or null. */
    Entry add(Entry e) {
        entries.removeIf(old -> old.snapshot.handoffId().equals(e.snapshot.handoffId()));
        entries.add(e);
        return entries.size() > MAX_SNAPSHOTS ? entries.remove(0) : null;
    }

    /** Holds an early receipt; returns the receipt the bound pushed out (the oldest), or null. */
    Held hold(Held h) {
        held.add(h);
        return held.size() > MAX_HELD ? held.remove(0) : null;
    }

    /** Removes and returns the held receipts of {@code handoffId}, in arrival order. */
    List<Held> takeHeld(String handoffId) {
        List<Held> out = new ArrayList<>();
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (h.receipt().handoffId().equals(handoffId)) {
                out.add(h);
                it.remove();
            }
        }
        return out;
    }

    public String previousOutcome() {
        return previousOutcome;
    }

    boolean isEmpty() {
        return entries.isEmpty() && held.isEmpty() && previousOutcome == null;
    }

    /** The earliest wall-clock time something is due: an unacknowledged snapshot's timeout, a held receipt's. */
    long nextDueMillis(long timeoutMillis, long idleTtlMillis) {
        long due = SessionTimerIndex.saturatedAdd(lastActivityMillis, idleTtlMillis);
        for (Entry e : entries) {
            if (!e.acknowledged() && !e.overdue) {
                due = Math.min(due, SessionTimerIndex.saturatedAdd(e.emittedAtMillis, timeoutMillis));
            }
        }
        for (Held h : held) due = Math.min(due, SessionTimerIndex.saturatedAdd(h.arrivedAtMillis(), timeoutMillis));
        return due;
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeLong(lastActivityMillis);
            string(out, previousOutcome);
            out.writeInt(entries.size());
            for (Entry e : entries) {
                SnapshotEmitted s = e.snapshot;
                out.writeUTF(s.session().tenantId());
                out.writeUTF(s.session().sessionId());
                out.writeUTF(s.handoffId());
                out.writeUTF(s.contentSha256());
                string(out, s.fromAgent());
                out.writeUTF(s.toAgent());
                out.writeLong(s.asOfSeq());
                out.writeLong(s.snapshotBytes());
                out.writeLong(s.messageChars());
                out.writeLong(s.brickChars());
                out.writeLong(s.transcriptTokens());
                out.writeLong(s.brickTokens());
                string(out, s.exactEncoding());
                out.writeLong(e.emittedAtMillis);
                out.writeBoolean(e.overdue);
                out.writeLong(e.acknowledgedAtMillis);
                string(out, e.receiverModel);
                number(out, e.budgetTokens);
                out.writeLong(e.startedAtMillis);
                out.writeByte(e.outcome == null ? -1 : e.outcome.ordinal());
                number(out, e.tokensSpent);
            }
            out.writeInt(held.size());
            for (Held h : held) {
                Receipt r = h.receipt();
                out.writeLong(h.arrivedAtMillis());
                out.writeUTF(r.session().tenantId());
                out.writeUTF(r.session().sessionId());
                out.writeUTF(r.handoffId());
                out.writeUTF(r.contentSha256());
                string(out, r.receiverModel());
                number(out, r.budgetTokens());
                out.writeLong(r.startedAtMillis());
                out.writeByte(r.outcome() == null ? -1 : r.outcome().ordinal());
                number(out, r.tokensSpent());
                blob(out, r.rawKey());
                blob(out, r.rawValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static HandoffLedger decode(byte[] bytes) {
        HandoffLedger l = new HandoffLedger();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int format = in.readByte();
            if (format != FORMAT) throw new IllegalStateException("unknown hand-off ledger format " + format);
            l.lastActivityMillis = in.readLong();
            l.previousOutcome = string(in);
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                var session = new dev.baton.engine.model.SessionKey(in.readUTF(), in.readUTF());
                SnapshotEmitted s = new SnapshotEmitted(session, in.readUTF(), in.readUTF(), string(in), in.readUTF(),
                        in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong(),
                        string(in));
                Entry e = new Entry(s, in.readLong());
                e.overdue = in.readBoolean();
                e.acknowledgedAtMillis = in.readLong();
                e.receiverModel = string(in);
                e.budgetTokens = number(in);
                e.startedAtMillis = in.readLong();
                int outcome = in.readByte();
                e.outcome = outcome < 0 ? null : Receipt.Result.values()[outcome];
                e.tokensSpent = number(in);
                l.entries.add(e);
            }
            n = in.readInt();
            for (int i = 0; i < n; i++) {
                long arrived = in.readLong();
                var session = new dev.baton.engine.model.SessionKey(in.readUTF(), in.readUTF());
                String handoffId = in.readUTF();
                String sha = in.readUTF();
                String model = string(in);
                Long budget = number(in);
                long started = in.readLong();
                int outcome = in.readByte();
                Long spent = number(in);
                Receipt r = new Receipt(session, handoffId, sha, model, budget, started,
                        outcome < 0 ? null : Receipt.Result.values()[outcome], spent, null, blob(in), blob(in));
                l.held.add(new Held(r, arrived));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return l;
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) out.writeUTF(s);
    }

    private static String string(DataInputStream in) throws IOException {
        return in.readBoolean() ? in.readUTF() : null;
    }

    private static void number(DataOutputStream out, Long v) throws IOException {
        out.writeBoolean(v != null);
        if (v != null) out.writeLong(v);
    }

    private static Long number(DataInputStream in) throws IOException {
        return in.readBoolean() ? in.readLong() : null;
    }

    private static void blob(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b == null ? -1 : b.length);
        if (b != null) out.write(b);
    }

    private static byte[] blob(DataInputStream in) throws IOException {
        int n = in.readInt();
        return n < 0 ? null : in.readNBytes(n);
    }
}
