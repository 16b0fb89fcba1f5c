package dev.baton.engine.state;

import dev.baton.engine.policy.Policy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The trail ledger (R3): every trail-bearing turn the retention plan can still name, newest first, with its trail
 * bytes and whether it went to the manifest (each one its own stored entry, {@link EntryKind#TRAIL}); how many older
 * manifest entries are only counted; and the legacy calls still waiting for their TOOL turn (each its own entry,
 * {@link EntryKind#CALL}).
 *
 * <p>{@link #walk} is R3's one walk: the renderer's plan ({@code RetentionPlanner}) and the state's compaction
 * ({@link #update}) both read it, so they cannot disagree.
 */
final class TrailLedger {
    /** Trail-bearing turns, newest first; manifest entries beyond the manifest cap are only counted. */
    final List<TrailEntry> trails = new ArrayList<>();
    long manifestUnlisted;
    /** Unanswered legacy calls by call id, oldest registration first. */
    final LinkedHashMap<String, OpenCall> openCalls = new LinkedHashMap<>();
    /** The ordinal the next registered legacy call gets (its stored entry's number). */
    long nextCallOrdinal;
    StateJournal journal;
    /**
     * Not stored: the sum over the manifested entries of {@link #trails} of their manifest line's length + 1, kept
     * while the ledger lives so that {@link #update} need not walk the ledger; -1 when unknown.
     */
    long manifestChars = -1;
    /** Not stored, known when {@link #manifestChars} is: how many entries are not manifested (the first ones). */
    int unmanifested;
    /** Not stored, known when {@link #manifestChars} is: the trail bytes of the entries not manifested. */
    long unmanifestedBytes;

    /** A legacy call not yet answered by a TOOL turn. */
    record OpenCall(long ordinal, long callingSeq, String agent, String callId, String tool, String arguments) {
    }

    /** Where R3 puts a trail: expanded (the newest ones), inlined (within the inline budget) or in the manifest. */
    enum Place { EXPANDED, INLINED, MANIFEST }

    /** R3's walk over the ledger, newest first: the place of each entry of {@link #trails}, by index. */
    List<Place> walk(Policy policy) {
        List<Place> places = new ArrayList<>(trails.size());
        long cumulative = 0;
        boolean overflow = false;
        for (int i = 0; i < trails.size(); i++) {
            TrailEntry e = trails.get(i);
            // Once manifested, always manifested (its contents may be gone): the plan only moves forward.
            if (e.manifested) overflow = true;
            if (!overflow && i < policy.expandedTrailTurns()) {
                places.add(Place.EXPANDED);
                continue;
            }
            if (!overflow) {
                cumulative += e.bytes;
                if (cumulative <= policy.inlineTrailBytes()) {
                    places.add(Place.INLINED);
                    continue;
                }
                overflow = true;
            }
            places.add(Place.MANIFEST);
        }
        return places;
    }

    /** A new trail-bearing turn (newest). */
    void add(TrailEntry e) {
        trails.add(0, e);
        if (e.manifested) {
            manifestChars = -1; // not what apply adds: let the next update walk
        } else {
            unmanifested++;
            unmanifestedBytes += e.bytes;
        }
        changed(e);
    }

    /** A legacy result grows its calling turn's trail bytes. */
    void addBytes(TrailEntry e, long bytes) {
        e.bytes += bytes;
        if (!e.manifested) unmanifestedBytes += bytes;
        changed(e);
    }

    void changed(TrailEntry e) {
        if (journal != null) journal.put(EntryKind.TRAIL, e.seq);
    }

    /**
     * The entry of this seq, or null: a binary search, as {@link #trails} is in descending seq order (entries are
     * added newest first in apply order, which is seq order, read back newest first, and only its old end is cut).
     */
    TrailEntry find(long seq) {
        int lo = 0;
        int hi = trails.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long s = trails.get(mid).seq;
            if (s == seq) return trails.get(mid);
            if (s > seq) lo = mid + 1;
            else hi = mid - 1;
        }
        return null;
    }

    /**
     * Marks the trails the walk puts in the manifest (they never leave it) and, when compacting, drops the entries
     * that even the manifest's cap can never list again, keeping only their count. Returns the seqs newly manifested
     * (those dropped at once included).
     *
     * <p>Costs what the turn changed, not the ledger's length. After any update the manifested entries are exactly a
     * suffix of {@link #trails} (the walk's MANIFEST places are a suffix and all get marked; a new entry is added
     * unmanifested in front), and the unmanifested entries past the expanded ones fit the inline budget. So with
     * running sums — the bytes of the unmanifested entries ({@link #unmanifestedBytes}), their number, and the
     * manifest's line sizes ({@link #manifestChars}) — the walk's first MANIFEST place is found by taking entries off
     * the inline region's old end while it is over budget (the largest prefix within budget: what the walk's
     * "first place where the cumulative bytes pass the budget" is, bytes being non-negative), and the manifest's cap
     * likewise from its old end. The sums start on a read-back ({@link #readBack}); when they are unknown (a ledger
     * built another way) the update is {@link #updateByFullWalk}, once, and starts them.
     * {@code TrailLedgerIncrementalProperties} checks both give the same ledger, journal and result.
     */
    List<Long> update(Policy policy, boolean compaction) {
        if (manifestChars < 0) {
            List<Long> newly = updateByFullWalk(policy, compaction);
            readBack();
            if (manifestChars < 0) throw new IllegalStateException("the full walk leaves the manifest a suffix");
            return newly;
        }
        int n = trails.size();
        int m = unmanifested; // [0, m) unmanifested, [m, n) manifested
        // R3's walk over the unmanifested prefix: the expanded entries, then the inline region within its budget.
        int expanded = Math.min(Math.max(0, policy.expandedTrailTurns()), m);
        long inline = unmanifestedBytes;
        for (int i = 0; i < expanded; i++) inline -= trails.get(i).bytes;
        int first = m;
        while (first > expanded && inline > policy.inlineTrailBytes()) inline -= trails.get(--first).bytes;

        List<Long> newly = List.of();
        long listed = 0; // manifest line chars of the newly manifested entries, newest first
        int cut = -1;
        int j = first;
        for (; j < m; j++) {
            TrailEntry e = trails.get(j);
            e.manifested = true;
            unmanifested--;
            unmanifestedBytes -= e.bytes;
            changed(e);
            if (newly.isEmpty()) newly = new ArrayList<>(2);
            newly.add(e.seq);
            int chars = ManifestLine.length(e) + 1;
            manifestChars += chars;
            if (!compaction) continue;
            listed += chars;
            if (listed > policy.manifestCapChars()) {
                cut = j;
                break;
            }
        }
        if (!compaction) return newly;
        if (cut < 0 && manifestChars > policy.manifestCapChars()) {
            // The cap is passed among the older manifest entries: drop from the oldest until the rest fit.
            long total = manifestChars;
            cut = n;
            while (cut > j && total > policy.manifestCapChars()) total -= ManifestLine.length(trails.get(--cut)) + 1;
        }
        if (cut >= 0) {
            // Entries this old can never be listed again (newer entries only push them further): count them.
            List<TrailEntry> old = trails.subList(cut, n);
            for (TrailEntry o : old) {
                if (o.manifested) {
                    manifestChars -= ManifestLine.length(o) + 1;
                } else { // past a cut among the newly manifested ones: dropped without being marked (as the walk does)
                    unmanifested--;
                    unmanifestedBytes -= o.bytes;
                    newly.add(o.seq); // manifested all the same: its turn (and a TOOL turn's step) must know
                }
                if (journal != null) journal.delete(EntryKind.TRAIL, o.seq);
            }
            manifestUnlisted += old.size();
            old.clear();
        }
        return newly;
    }

    /**
     * {@link #update} by R3's whole walk over the ledger: what the first update after a load runs, and the reference
     * the incremental update is checked against.
     */
    List<Long> updateByFullWalk(Policy policy, boolean compaction) {
        List<Place> places = walk(policy);
        List<Long> newly = new ArrayList<>();
        long manifestLineChars = 0;
        for (int i = 0; i < trails.size(); i++) {
            if (places.get(i) != Place.MANIFEST) continue;
            TrailEntry e = trails.get(i);
            if (!e.manifested) {
                e.manifested = true;
                changed(e);
                newly.add(e.seq);
            }
            if (!compaction) continue;
            manifestLineChars += ManifestLine.length(e) + 1;
            if (manifestLineChars > policy.manifestCapChars()) {
                // Entries this old can never be listed again (newer entries only push them further): count them.
                List<TrailEntry> old = trails.subList(i, trails.size());
                for (TrailEntry o : old) if (!o.manifested) newly.add(o.seq); // manifested all the same
                manifestUnlisted += old.size();
                if (journal != null) for (TrailEntry o : old) journal.delete(EntryKind.TRAIL, o.seq);
                old.clear();
                break;
            }
        }
        return newly;
    }

    /**
     * Starts the running sums of {@link #update} for a ledger read back from its entries: one pass over the entries
     * (no walk, no allocation) that also checks they are as every update leaves them — the manifested entries a
     * suffix. When they are not (a state written by other code), the sums stay unknown and the next update is the
     * full walk, which puts them in that shape.
     */
    void readBack() {
        long sum = 0;
        long bytes = 0;
        int count = 0;
        boolean inManifest = false;
        for (TrailEntry e : trails) {
            if (e.manifested) {
                inManifest = true;
                sum += ManifestLine.length(e) + 1;
            } else if (inManifest) {
                manifestChars = -1;
                return;
            } else {
                count++;
                bytes += e.bytes;
            }
        }
        manifestChars = sum;
        unmanifested = count;
        unmanifestedBytes = bytes;
    }

    /** Registers a legacy call (a re-used call id moves to the newest place). */
    void open(long callingSeq, String agent, String callId, String tool, String arguments) {
        close(callId);
        OpenCall c = new OpenCall(nextCallOrdinal++, callingSeq, agent, callId, tool, arguments);
        openCalls.put(callId, c);
        if (journal != null) journal.put(EntryKind.CALL, c.ordinal());
    }

    /** Removes and returns the open call with this id, or null. */
    OpenCall close(String callId) {
        if (callId == null) return null;
        OpenCall c = openCalls.remove(callId);
        if (c != null && journal != null) journal.delete(EntryKind.CALL, c.ordinal());
        return c;
    }

    /** Forgets the oldest open calls past the bound. */
    void boundOpenCalls(Policy policy) {
        while (openCalls.size() > Math.max(0, policy.maxOpenLegacyCalls())) {
            Iterator<OpenCall> it = openCalls.values().iterator();
            OpenCall c = it.next();
            it.remove();
            if (journal != null) journal.delete(EntryKind.CALL, c.ordinal());
        }
    }
}
