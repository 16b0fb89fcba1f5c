package dev.baton.engine.trim;

import dev.baton.engine.markers.Markers;

import java.util.ArrayList;
import java.util.List;

/**
 * R5: arguments are cut only inside their longest string values, so they stay a valid JSON object. The cut keeps a
 * head and a tail of the string's raw (escaped) content around an inline marker, never splitting an escape sequence
 * or a surrogate pair.
 */
public final class ArgumentsCutter {
    private ArgumentsCutter() {
    }

    /** A string value's content span in the compact JSON text (between the quotes). */
    record Span(int start, int end) {
        int length() {
            return end - start;
        }
    }

    /** Result: the new arguments, how many characters of string content were removed, and each inline marker. */
    public record Cut(String arguments, long removed, List<String> markers, List<Long> removedPerMarker) {
    }

    /**
     * Shortens {@code args} by at least {@code excess} characters when possible, cutting the longest string values
     * first. Returns the arguments unchanged (removed 0) when they have no string value long enough.
     */
    public static Cut cut(String args, int excess) {
        String current = args;
        long removedTotal = 0;
        List<String> markers = new ArrayList<>();
        List<Long> counts = new ArrayList<>();
        int guard = 0;
        while (excess > 0 && guard++ < 64) {
            List<Span> spans = stringValueSpans(current);
            Span longest = null;
            for (Span s : spans) if (longest == null || s.length() > longest.length()) longest = s;
            if (longest == null) break;
            List<Integer> bounds = boundaries(current, longest);
            int units = bounds.size() - 1;
            // Remove enough content for the excess plus the marker that replaces it.
            int removeChars = excess + Markers.argumentsTrimmed(excess + 99_999_999L).length();
            if (longest.length() <= Markers.argumentsTrimmed(longest.length()).length() + 2) break;
            int keepChars = Math.max(0, longest.length() - removeChars);
            int headChars = keepChars / 2;
            int tailChars = keepChars - headChars;
            int headEnd = longest.start();
            for (int b : bounds) if (b - longest.start() <= headChars) headEnd = b;
            int tailStart = longest.end();
            for (int i = bounds.size() - 1; i >= 0; i--) {
                int b = bounds.get(i);
                if (longest.end() - b <= tailChars) tailStart = b;
            }
            if (tailStart < headEnd) tailStart = headEnd;
            long removed = tailStart - headEnd;
            if (removed <= 0 || units <= 0) break;
            String marker = Markers.argumentsTrimmed(removed);
            String next = current.substring(0, headEnd) + marker + current.substring(tailStart);
            int gained = current.length() - next.length();
            if (gained <= 0) break;
            removedTotal += removed;
            markers.add(marker);
            counts.add(removed);
            excess -= gained;
            current = next;
        }
        return new Cut(current, removedTotal, markers, counts);
    }

    /** Content spans of string values (not keys) in a compact JSON text. */
    static List<Span> stringValueSpans(String json) {
        List<Span> out = new ArrayList<>();
        // Track whether the next string in an object is a key.
        java.util.ArrayDeque<Boolean> inObject = new java.util.ArrayDeque<>();
        boolean expectKey = false;
        int i = 0;
        while (i < json.length()) {
            char c = json.charAt(i);
            if (c == '"') {
                int start = i + 1;
                int j = start;
                while (j < json.length()) {
                    char d = json.charAt(j);
                    if (d == '\\') j += 2;
                    else if (d == '"') break;
                    else j++;
                }
                if (!expectKey) out.add(new Span(start, Math.min(j, json.length())));
                expectKey = false;
                i = j + 1;
                continue;
            }
            if (c == '{') {
                inObject.push(true);
                expectKey = true;
            } else if (c == '[') {
                inObject.push(false);
                expectKey = false;
            } else if (c == '}' || c == ']') {
                if (!inObject.isEmpty()) inObject.pop();
                expectKey = false;
            } else if (c == ',') {
                expectKey = !inObject.isEmpty() && inObject.peek();
            } else if (c == ':') {
                expectKey = false;
            }
            i++;
        }
        return out;
    }

    /** Positions inside a string span where a cut may fall: between escape sequences and whole code points. */
    static List<Integer> boundaries(String json, Span span) {
        List<Integer> out = new ArrayList<>();
        int i = span.start();
        out.add(i);
        while (i < span.end()) {
            char c = json.charAt(i);
            if (c == '\\') {
                char e = i + 1 < span.end() ? json.charAt(i + 1) : ' ';
                i += e == 'u' ? 6 : 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < span.end() && Character.isLowSurrogate(json.charAt(i + 1))) {
                i += 2;
            } else {
                i++;
            }
            out.add(Math.min(i, span.end()));
        }
        return out;
    }
}
