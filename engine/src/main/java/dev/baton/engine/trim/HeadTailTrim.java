package dev.baton.engine.trim;

import dev.baton.engine.layout.Segment;
import dev.baton.engine.layout.SegmentBuilder;
import dev.baton.engine.markers.Markers;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Truncation;
import dev.baton.engine.snapshot.TruncationKind;
import dev.baton.engine.state.Compacted;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.StoredTurn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * R5 — head + tail trim. Within budget, every segment renders in seq order with the manifest right after the head.
 * Over budget, the transcript keeps the head (first USER turn, first ASSISTANT turn after it, then the manifest), one
 * middle system message and the longest tail of whole segments that fits the rest of the budget. The middle is the
 * digest of the omitted turns (one line per turn) when it fits the digest budget, otherwise the marker
 * {@code (earlier conversation omitted — N turns, seq a–b; full history in the session log)}. A turn with any omitted
 * segment counts as omitted. The newest segment is always kept: when even it does not fit, it (and any head part
 * that alone exceeds the budget) keeps a head and a tail of its content around a marker line
 * ({@link SegmentCutter}).
 *
 * <p>The middle and the tail are chosen together: the tail is the longest one such that the head, the digest of
 * exactly the turns it leaves out, and the tail fit the budget, the digest also fitting its own budget
 * ({@link #digestTailStart}); only when no tail leaves a digest that fits is the middle the bare marker, with the
 * longest tail that fits beside the marker's largest possible size. Both are deterministic.
 */
public final class HeadTailTrim {
    private HeadTailTrim() {
    }

    /**
     * The trimmed transcript as segments in final order (manifest and middle included as Baton segments), and the first
     * seq its tail keeps whole ({@code tailSeq}; -1 when nothing was trimmed) and whether its middle is the bare marker
     * ({@code markerMiddle}): the trim step's anchor.
     */
    public record Result(List<Segment> segments, boolean trimmed, long tailSeq, boolean markerMiddle) {
        public Result(List<Segment> segments, boolean trimmed) {
            this(segments, trimmed, -1, false);
        }
    }

    public static Result trim(SegmentBuilder.Layout layout, Segment manifest, int budget, Policy policy,
                              SessionState state) {
        List<Segment> head = layout.head();
        List<Segment> body = layout.body();
        long total = sum(head) + sum(body) + (manifest == null ? 0 : manifest.size());
        if (total <= budget) return new Result(untrimmed(head, manifest, body), false);

        long fixed = sum(head) + (manifest == null ? 0 : manifest.size());
        if (!body.isEmpty()) {
            long room = budget - fixed;
            if (policy.trimStepChars() > 0) {
                Result stepped = stepped(head, manifest, body, room, policy, state);
                if (stepped != null) return stepped;
            }
            Result longest = longestTail(head, manifest, body, room, policy, state);
            if (longest != null) return longest;
        }
        List<Segment> cut = degenerate(head, manifest, body, budget, state);
        return new Result(cut, true, body.isEmpty() ? -1 : boundarySeq(body, newestContentIndex(body)), true);
    }

    /**
     * R5's longest tail for {@code room} (the budget less head and manifest): the digest of exactly the omitted turns
     * with the longest tail it leaves room for; else the marker, with its largest possible size reserved; null when not
     * even the newest segment fits beside the marker.
     */
    static Result longestTail(List<Segment> head, Segment manifest, List<Segment> body, long room, Policy policy,
                              SessionState state) {
        // The newest segment is the newest content: a missing-range marker after it is kept with it.
        int digestStart = digestTailStart(body, room, policy.digestBudgetChars(), state);
        if (digestStart >= 0) {
            Omitted o = omitted(body, digestStart, state);
            return new Result(assemble(head, manifest, summarized(o), body.subList(digestStart, body.size()), o), true,
                    o.boundarySeq, false);
        }
        // No digest fits: the marker, with its largest possible size reserved.
        long availB = room - markerBound(state, body);
        if (availB >= mandatoryTail(body)) {
            int start = tailStart(body, availB);
            Omitted o = omitted(body, start, state);
            Segment middle = o.count == 0 ? null : dropped(o);
            return new Result(assemble(head, manifest, middle, body.subList(start, body.size()), o), true,
                    o.boundarySeq, true);
        }
        return null;
    }

    /**
     * R5 in steps of N = {@code trimStepChars} (docs/rendering.md, "Trim step"). The tail keeps starting at the
     * session's anchor (the first seq of the tail of its last remembered snapshot) while the tail from there, with the
     * same kind of middle (digest or bare marker) for exactly the turns it leaves out, fits {@code room}. When it does not (or there is no anchor), the tail
     * moves: to the longest one that fits {@code room - N} (less {@value #MARKER_GROWTH} characters for the marker's
     * numbers to grow), so that more than N characters of new segments must arrive before it moves again; where not even that exists, to R5's longest tail (null here). Never over the budget: both
     * are checked against the same room as R5's own choice.
     */
    /** Characters the dropped-middle marker's reserved size may grow by before a stepped tail moves again. */
    static final int MARKER_GROWTH = 16;

    static Result stepped(List<Segment> head, Segment manifest, List<Segment> body, long room, Policy policy,
                          SessionState state) {
        long anchor = state.trimAnchorSeq();
        if (anchor >= 0) {
            int mandatory = newestContentIndex(body);
            int at = 0;
            while (at < mandatory && boundarySeq(body, at) < anchor) at++;
            if (boundarySeq(body, at) >= anchor) {
                Result kept = tailAt(head, manifest, body, at, room, state.trimAnchorMarker(), policy, state);
                if (kept != null) return kept;
            }
        }
        // The marker's reserved size grows with the session's seq numbers (a few characters per decade): reserved
        // too, so that the promise holds in marker mode as well.
        long slack = (long) policy.trimStepChars() + MARKER_GROWTH;
        return room - slack > 0 ? longestTail(head, manifest, body, room - slack, policy, state) : null;
    }

    /**
     * The transcript whose tail starts at body segment {@code start}, when it fits {@code room} with its middle: the
     * bare marker with {@code marker}, else the digest of exactly the turns it leaves out (which must fit its own
     * budget); null when it does not fit.
     */
    static Result tailAt(List<Segment> head, Segment manifest, List<Segment> body, int start, long room,
                         boolean marker, Policy policy, SessionState state) {
        long tail = 0;
        for (int i = start; i < body.size(); i++) tail += body.get(i).size();
        Omitted o = omitted(body, start, state);
        List<Segment> kept = body.subList(start, body.size());
        if (o.count == 0) {
            return tail <= room ? new Result(assemble(head, manifest, null, kept, o), true, o.boundarySeq, marker) : null;
        }
        if (marker) {
            return tail + markerBound(state, body) <= room
                    ? new Result(assemble(head, manifest, dropped(o), kept, o), true, o.boundarySeq, true) : null;
        }
        Segment digest = policy.digestBudgetChars() > 0 ? summarized(o) : null;
        if (digest != null && digest.size() <= policy.digestBudgetChars() && tail + digest.size() <= room) {
            return new Result(assemble(head, manifest, digest, kept, o), true, o.boundarySeq, false);
        }
        return null;
    }

    /** The digest middle of {@code o}, or null when it has none (nothing omitted, or the lines overflowed). */
    static Segment summarized(Omitted o) {
        String digest = digest(o);
        return digest == null ? null : Segment.baton(digest, new Truncation(
                TruncationKind.TRANSCRIPT_MIDDLE_SUMMARIZED, o.from, o.to, o.count, firstLine(digest)));
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Omitted turns: those compacted out of state and the body turns before the tail's boundary. */
    static final class Omitted {
        long count;
        long from = -1;
        long to = -1;
        long boundarySeq;
        List<String> lines = new ArrayList<>();
        boolean overflow;

        void add(long seq) {
            count++;
            if (from < 0 || seq < from) from = seq;
            if (seq > to) to = seq;
        }
    }

    /** Index of the newest segment that is not a marker (or the last one when all are markers). */
    static int newestContentIndex(List<Segment> body) {
        for (int i = body.size() - 1; i >= 0; i--) if (body.get(i).kind() != Segment.Kind.MARKER) return i;
        return body.size() - 1;
    }

    /** Size of the newest content segment and every marker after it: what the tail always keeps. */
    static long mandatoryTail(List<Segment> body) {
        long n = 0;
        for (int i = newestContentIndex(body); i < body.size(); i++) n += body.get(i).size();
        return n;
    }

    /**
     * Index of the first body segment of the longest suffix whose size fits {@code avail}; the newest content segment
     * and the markers after it are always in it.
     */
    static int tailStart(List<Segment> body, long avail) {
        int mandatory = newestContentIndex(body);
        long used = 0;
        int start = body.size();
        for (int i = body.size() - 1; i >= 0; i--) {
            long s = body.get(i).size();
            if (used + s > avail && i < mandatory) break;
            used += s;
            start = i;
        }
        return start;
    }

    /**
     * The start of the longest tail such that the digest of exactly the turns it leaves out (the compacted ones and the
     * body turns before its boundary that render something, as {@link #omitted}) fits {@code digestBudget} and the
     * digest and the tail together fit {@code room}; -1 when no tail does. A tail that leaves nothing out needs no
     * middle.
     *
     * <p>The digest has one fixed line per omitted turn ({@code StoredTurn#digestLine}, kept by the turn and by
     * compaction), so its size for a tail is the header plus a prefix sum of the line sizes of the oldest rendering
     * body turns, after the compacted turns' lines. Lines are built only for the turns a digest within its budget can
     * hold (the oldest ones), and the tail grows one segment at a time as in {@link #tailStart}, so the search costs
     * what the tail search costs plus at most a digest's worth of lines. Growing the tail can make the digest
     * smaller by more than it adds (many short turns), so every tail within the room is tried, the longest fitting
     * one wins.
     */
    static int digestTailStart(List<Segment> body, long room, int digestBudget, SessionState state) {
        if (digestBudget <= 0) return -1;
        Compacted c = state.compacted();
        if (c.count > 0 && c.overflow) return -1;
        long compactedChars = c.count > 0 ? c.lineChars : 0;
        if (compactedChars > digestBudget) return -1;
        // The distinct seqs that render something, in seq order (body segments are in seq order but for markers).
        long[] rendering = renderingSeqs(body);
        int n = rendering.length;
        // Prefix sums of the line sizes ('\n' + line) of the oldest rendering turns while they can fit the budget.
        long[] prefix = new long[Math.min(n, 64) + 1];
        int known = 0; // prefix[0..known] are known
        long sum = compactedChars;
        List<StoredTurn> turns = state.body();
        int ti = 0;
        while (known < n) {
            long seq = rendering[known];
            while (ti < turns.size() && turns.get(ti).seq < seq) ti++;
            if (ti == turns.size() || turns.get(ti).seq != seq) break; // not a body turn: no line (cannot happen)
            long next = sum + turns.get(ti).digestLine().length() + 1;
            if (next > digestBudget) break;
            if (known + 1 == prefix.length) prefix = Arrays.copyOf(prefix, 2 * prefix.length);
            sum = next;
            prefix[++known] = sum - compactedChars;
        }
        int mandatory = newestContentIndex(body);
        long tail = 0;
        int best = -1;
        for (int i = body.size() - 1; i >= 0; i--) {
            tail += body.get(i).size();
            if (i > mandatory) continue;
            if (tail > room) break;
            // The turns omitted with this tail: the rendering ones before its boundary.
            long boundary = boundarySeq(body, i);
            int k = lowerBound(rendering, n, boundary);
            if (k > known) continue; // their lines alone pass the digest budget: a longer tail may leave fewer
            long count = c.count + k;
            long size = 0;
            if (count > 0) {
                long from = c.count > 0 ? c.fromSeq : rendering[0];
                long to = k > 0 ? rendering[k - 1] : c.toSeq;
                size = Markers.middleSummarized(count, from, to).length() + compactedChars + prefix[k];
                if (size > digestBudget) continue;
            }
            if (tail + size <= room) best = i;
        }
        return best;
    }

    /**
     * The distinct seqs of the body's non-marker segments (the turns that render something), ascending (the layout's
     * order already sorts them: then checking is all).
     */
    static long[] renderingSeqs(List<Segment> body) {
        long[] rendering = new long[body.size()];
        int n = 0;
        boolean sorted = true;
        for (Segment s : body) {
            if (s.kind() == Segment.Kind.MARKER) continue;
            if (n > 0 && rendering[n - 1] > s.seq()) sorted = false;
            rendering[n++] = s.seq();
        }
        if (!sorted) Arrays.sort(rendering, 0, n);
        int d = 0;
        for (int i = 0; i < n; i++) if (d == 0 || rendering[d - 1] != rendering[i]) rendering[d++] = rendering[i];
        return Arrays.copyOf(rendering, d);
    }

    /** The number of entries of {@code a[0..n)} (ascending) below {@code key}. */
    static int lowerBound(long[] a, int n, long key) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /**
     * The first seq a tail starting at body segment {@code start} keeps whole: turns below it are omitted (a turn with
     * any omitted segment counts as omitted); {@link Long#MAX_VALUE} for an empty tail.
     */
    static long boundarySeq(List<Segment> body, int start) {
        if (start >= body.size()) return Long.MAX_VALUE;
        Segment first = body.get(start);
        if (first.kind() == Segment.Kind.MARKER) return first.seq();
        boolean partial = start > 0 && body.get(start - 1).kind() != Segment.Kind.MARKER
                && body.get(start - 1).seq() == first.seq();
        return partial ? first.seq() + 1 : first.seq();
    }

    /**
     * The omitted turns: those compacted out of state, and the body turns before the tail's boundary that render
     * something (a turn with any omitted segment; a turn that renders nothing is not omitted). Digest lines in seq
     * order.
     */
    static Omitted omitted(List<Segment> body, int start, SessionState state) {
        Omitted o = new Omitted();
        Compacted c = state.compacted();
        java.util.TreeMap<Long, String> lines = new java.util.TreeMap<>();
        if (c.count > 0) {
            o.count = c.count;
            o.from = c.fromSeq;
            o.to = c.toSeq;
            o.overflow = c.overflow;
            for (int i = 0; i < c.lines.size(); i++) lines.put(c.lineSeqs.get(i), c.lines.get(i));
        }
        o.boundarySeq = boundarySeq(body, start);
        long[] rendering = renderingSeqs(body);
        int n = rendering.length;
        // The omitted body turns' digest lines (each kept with its turn across hand-offs), in seq order.
        List<StoredTurn> omittedTurns = new ArrayList<>();
        for (StoredTurn t : state.body()) {
            if (t.seq >= o.boundarySeq) break;
            if (Arrays.binarySearch(rendering, 0, n, t.seq) < 0) continue;
            o.add(t.seq);
            if (!o.overflow) omittedTurns.add(t);
        }
        if (lines.isEmpty() || omittedTurns.isEmpty() || lines.lastKey() < omittedTurns.get(0).seq) {
            // Compacted turns are older than body turns: their lines, then the body's, are already in seq order.
            o.lines.addAll(lines.values());
            for (StoredTurn t : omittedTurns) o.lines.add(t.digestLine());
        } else {
            for (StoredTurn t : omittedTurns) lines.put(t.seq, t.digestLine());
            o.lines.addAll(lines.values());
        }
        return o;
    }

    static String digest(Omitted o) {
        if (o.count == 0 || o.overflow) return null;
        StringBuilder sb = new StringBuilder(Markers.middleSummarized(o.count, o.from, o.to));
        for (String l : o.lines) sb.append('\n').append(l);
        return sb.toString();
    }

    static Segment dropped(Omitted o) {
        String m = Markers.middleDropped(o.count, o.from, o.to);
        return Segment.baton(m, new Truncation(TruncationKind.TRANSCRIPT_MIDDLE_DROPPED, o.from, o.to, o.count, m));
    }

    /** An upper bound of the dropped-middle marker's length: its numbers cannot exceed these. */
    static long markerBound(SessionState state, List<Segment> body) {
        long maxSeq = Math.max(state.nextSeq(), 0);
        for (Segment s : body) maxSeq = Math.max(maxSeq, s.seq());
        long n = Math.max(state.turnCount(), 2);
        return Markers.middleDropped(Math.max(n, maxSeq + 1), maxSeq, maxSeq + 1).length(); // a range's longest form
    }

    static String firstLine(String s) {
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }

    static long sum(List<Segment> segs) {
        long n = 0;
        for (Segment s : segs) n += s.size();
        return n;
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Everything in seq order, legacy steps at their calling turns, the manifest right after the head. */
    static List<Segment> untrimmed(List<Segment> head, Segment manifest, List<Segment> body) {
        List<Segment> all = new ArrayList<>(head.size() + body.size() + 1);
        all.addAll(head);
        all.addAll(body);
        List<Segment> ordered = relocate(all, Long.MIN_VALUE);
        if (manifest != null) {
            int at = 0;
            long lastHeadOrder = Long.MIN_VALUE;
            for (Segment h : head) lastHeadOrder = Math.max(lastHeadOrder, h.order());
            if (lastHeadOrder != Long.MIN_VALUE) {
                for (int i = 0; i < ordered.size(); i++) {
                    if (ordered.get(i).order() <= lastHeadOrder) at = i + 1;
                }
            }
            ordered.add(at, manifest);
        }
        return ordered;
    }

    /**
     * Head, manifest, middle, tail. A head turn newer than a kept tail turn (the first ASSISTANT turn came after
     * several USER turns that are themselves in the tail) keeps its place in seq order inside the tail, so that
     * the conversation never reads out of order.
     */
    static List<Segment> assemble(List<Segment> head, Segment manifest, Segment middle, List<Segment> tail, Omitted o) {
        List<Segment> out = new ArrayList<>();
        List<Segment> late = new ArrayList<>(tail);
        long oldestTail = Long.MAX_VALUE;
        for (Segment t : tail) oldestTail = Math.min(oldestTail, t.seq());
        for (Segment h : head) {
            if (h.seq() > oldestTail) late.add(h);
            else out.add(h);
        }
        if (manifest != null) out.add(manifest);
        if (middle != null) out.add(middle);
        out.addAll(relocate(late, o.boundarySeq));
        return out;
    }

    /**
     * Moves legacy steps to their calling turn when that turn is kept ({@code homeSeq >= boundarySeq}), before the
     * calling turn's text, and sorts by position (stable: a turn keeps its own order).
     */
    static List<Segment> relocate(List<Segment> segs, long boundarySeq) {
        List<Segment> out = new ArrayList<>(segs.size());
        for (Segment s : segs) {
            if (s.relocatable() && s.homeSeq() >= boundarySeq) out.add(s.at(2 * s.homeSeq() + 1));
            else out.add(s);
        }
        // A stable sort leaves a list already in (position, rank) order as it is: checked first, since that is the
        // usual case (no legacy step moved), and a walk costs less than a sort with a composed comparator.
        if (!inOrder(out)) out.sort(POSITION_THEN_RANK);
        return out;
    }

    /** The transcript's order: by position, then {@link #rank} within a turn. */
    private static final Comparator<Segment> POSITION_THEN_RANK =
            Comparator.comparingLong(Segment::order).thenComparingInt(HeadTailTrim::rank);

    /** True when {@code segs} is already in {@link #POSITION_THEN_RANK} order. */
    static boolean inOrder(List<Segment> segs) {
        for (int i = 1; i < segs.size(); i++) {
            if (POSITION_THEN_RANK.compare(segs.get(i - 1), segs.get(i)) > 0) return false;
        }
        return true;
    }

    /** Within one turn: own steps, then relocated legacy steps, then the text. */
    static int rank(Segment s) {
        if (s.kind() == Segment.Kind.ASSISTANT_TEXT) return 2;
        if (s.kind() == Segment.Kind.STEP && s.seq() != s.homeSeq() && s.order() == 2 * s.homeSeq() + 1) return 1;
        return 0;
    }

    // ---------------------------------------------------------------------------------------------------------

    /**
     * Not even the head, the manifest and the newest segment fit: every one of them is cut to a common cap (the
     * largest cap whose total fits: water-filling), each keeping a head and a tail of its content around a marker.
     */
    static List<Segment> degenerate(List<Segment> head, Segment manifest, List<Segment> body, int budget,
                                    SessionState state) {
        int newest = body.isEmpty() ? 0 : newestContentIndex(body);
        List<Segment> tail = body.isEmpty() ? List.of() : body.subList(newest, body.size());
        Segment middle = null;
        Omitted o = null;
        if (!body.isEmpty()) {
            o = omitted(body, newest, state);
            if (o.count > 0) middle = dropped(o);
        }
        long room = budget - (middle == null ? 0 : middle.size());
        List<Segment> parts = new ArrayList<>(head);
        if (manifest != null) parts.add(manifest);
        parts.addAll(tail);
        long cap = waterLevel(parts, room);
        List<Segment> cutHead = new ArrayList<>();
        for (Segment h : head) cutHead.add(SegmentCutter.cut(h, (int) Math.min(Integer.MAX_VALUE, cap)));
        Segment cutManifest = manifest;
        List<Segment> cutTail = new ArrayList<>();
        for (Segment t : tail) cutTail.add(SegmentCutter.cut(t, (int) Math.min(Integer.MAX_VALUE, cap)));
        if (o == null) {
            o = new Omitted();
            o.boundarySeq = Long.MAX_VALUE;
        }
        return assemble(cutHead, cutManifest, middle, cutTail, o);
    }

    /** The largest cap c with sum(min(size, c)) <= room over the cuttable parts (markers are not cut). */
    static long waterLevel(List<Segment> parts, long room) {
        long fixed = 0;
        List<Long> sizes = new ArrayList<>();
        for (Segment p : parts) {
            if (p.kind() == Segment.Kind.MARKER) fixed += p.size();
            else sizes.add((long) p.size());
        }
        long avail = room - fixed;
        if (sizes.isEmpty()) return Long.MAX_VALUE;
        sizes.sort(Long::compare);
        long used = 0;
        int n = sizes.size();
        for (int i = 0; i < n; i++) {
            long remainingParts = n - i;
            long c = (avail - used) / remainingParts;
            if (sizes.get(i) <= c) {
                used += sizes.get(i);
            } else {
                return Math.max(c, 0);
            }
        }
        return Long.MAX_VALUE;
    }
}
