package dev.baton.receivers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the Python {@code repr} of AutoGen's records as its console prints them, e.g.
 * {@code [FunctionCall(id='call_1', arguments='{"q":"x"}', name='search')]}: a list of {@code Type(key=value, ...)}
 * whose values are string literals (either quote, with escapes) or bare words ({@code True}, {@code None}, numbers).
 */
final class PythonRepr {
    private final String s;
    private int i;

    private PythonRepr(String s) {
        this.s = s;
    }

    /** The keyword arguments of every {@code Type(...)} in a printed list, in order. */
    static List<Map<String, String>> records(String text) {
        PythonRepr p = new PythonRepr(text.strip());
        List<Map<String, String>> out = new ArrayList<>();
        p.expect('[');
        while (true) {
            p.spaces();
            if (p.peek() == ']') break;
            out.add(p.record());
            p.spaces();
            if (p.peek() == ',') p.i++;
        }
        return out;
    }

    private Map<String, String> record() {
        while (peek() != '(') i++;
        i++;
        Map<String, String> fields = new LinkedHashMap<>();
        while (true) {
            spaces();
            if (peek() == ')') {
                i++;
                return fields;
            }
            int eq = s.indexOf('=', i);
            String key = s.substring(i, eq).strip();
            i = eq + 1;
            fields.put(key, value());
            spaces();
            if (peek() == ',') i++;
        }
    }

    private String value() {
        spaces();
        char c = peek();
        if (c == '\'' || c == '"') return string(c);
        int start = i;
        while (i < s.length() && s.charAt(i) != ',' && s.charAt(i) != ')') i++;
        return s.substring(start, i).strip();
    }

    private String string(char quote) {
        i++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = s.charAt(i++);
            if (c == quote) return sb.toString();
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = s.charAt(i++);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case '0' -> sb.append('\0');
                case 'x' -> sb.appendCodePoint(hex(2));
                case 'u' -> sb.appendCodePoint(hex(4));
                case 'U' -> sb.appendCodePoint(hex(8));
                default -> sb.append(e); // \\ \' \" and anything Python keeps as written
            }
        }
    }

    private int hex(int n) {
        int v = Integer.parseInt(s.substring(i, i + n), 16);
        i += n;
        return v;
    }

    private void spaces() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    }

    private char peek() {
        return i < s.length() ? s.charAt(i) : ']';
    }

    private void expect(char c) {
        spaces();
        if (peek() != c) throw new IllegalArgumentException("expected '" + c + "' at " + i + " of " + s);
        i++;
    }
}
