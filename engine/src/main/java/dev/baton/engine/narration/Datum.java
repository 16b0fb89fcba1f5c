package dev.baton.engine.narration;

/**
 * A piece of quoted data (a text, a result) that may have been cut: {@code head}, then Baton's marker line, then
 * {@code tail}. Uncut data has a null marker and an empty tail.
 */
public record Datum(String head, String marker, String tail) {
    public static Datum of(String text) {
        return new Datum(text == null ? "" : text, null, "");
    }

    public boolean cut() {
        return marker != null;
    }

    /** As shown where data is escaped (narration, system messages, brick): each part escaped, the marker not. */
    public String escaped() {
        if (marker == null) return Escaping.escape(head);
        return Escaping.escape(head) + "\n" + marker + "\n" + Escaping.escape(tail);
    }

    /** Appends {@link #escaped()} to {@code out} without building it first. */
    public StringBuilder escapedTo(StringBuilder out) {
        Escaping.escapeTo(head, out);
        if (marker == null) return out;
        out.append('\n').append(marker).append('\n');
        return Escaping.escapeTo(tail, out);
    }

    /** As shown where data is not escaped (user, assistant and tool message contents). */
    public String plain() {
        if (marker == null) return head;
        return head + "\n" + marker + "\n" + tail;
    }

    /** The data that survived, for parity accounting (R9). */
    public String kept() {
        return marker == null ? head : head + tail;
    }

    /** {@code plain().length()} without building it. */
    public int plainLength() {
        return marker == null ? head.length() : head.length() + 1 + marker.length() + 1 + tail.length();
    }

    /** {@code escaped().length()} without building it. */
    public int escapedLength() {
        if (marker == null) return Escaping.escapedLength(head);
        return Escaping.escapedLength(head) + 1 + marker.length() + 1 + Escaping.escapedLength(tail);
    }

    public int length() {
        return head.length() + tail.length();
    }
}
