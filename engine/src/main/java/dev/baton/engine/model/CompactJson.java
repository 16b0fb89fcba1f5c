package dev.baton.engine.model;

/**
 * Compact form of a tool call's {@code arguments} (R1): the received JSON object with insignificant white space
 * removed and nothing else changed — key order, number literals, escapes and non-ASCII characters stay exactly as
 * received. Written by hand because JSON libraries re-encode numbers and strings when they write.
 */
public final class CompactJson {
    private CompactJson() {
    }

    /** Thrown when the text is not exactly one JSON object. */
    public static final class NotAJsonObject extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public NotAJsonObject(String message) {
            super(message);
        }
    }

    /**
     * Validates that {@code text} is one JSON object (RFC 8259) and returns it without insignificant white space.
     *
     * @throws NotAJsonObject when it is not
     */
    public static String compactObject(String text) {
        if (text == null) throw new NotAJsonObject("arguments are missing");
        Parser p = new Parser(text);
        p.ws();
        if (p.pos >= text.length() || text.charAt(p.pos) != '{') throw new NotAJsonObject("arguments are not a JSON object");
        p.value();
        p.ws();
        if (p.pos != text.length()) throw new NotAJsonObject("trailing characters after the JSON object at " + p.pos);
        return p.out.toString();
    }

    /** True when {@code text} is already a compact JSON object. */
    public static boolean isCompactObject(String text) {
        try {
            return compactObject(text).equals(text);
        } catch (NotAJsonObject e) {
            return false;
        }
    }

    private static final class Parser {
        final String s;
        int pos;
        final StringBuilder out;
        int depth;

        Parser(String s) {
            this.s = s;
            this.out = new StringBuilder(s.length());
        }

        void ws() {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') pos++;
                else break;
            }
        }

        NotAJsonObject err(String what) {
            return new NotAJsonObject("invalid JSON at " + pos + ": " + what);
        }

        char peek() {
            if (pos >= s.length()) throw err("unexpected end");
            return s.charAt(pos);
        }

        void value() {
            ws();
            char c = peek();
            switch (c) {
                case '{' -> object();
                case '[' -> array();
                case '"' -> string();
                case 't' -> literal("true");
                case 'f' -> literal("false");
                case 'n' -> literal("null");
                default -> {
                    if (c == '-' || (c >= '0' && c <= '9')) number();
                    else throw err("unexpected character '" + c + "'");
                }
            }
        }

        void object() {
            if (++depth > 512) throw err("nesting too deep");
            out.append('{');
            pos++;
            ws();
            if (peek() == '}') {
                pos++;
                out.append('}');
                depth--;
                return;
            }
            while (true) {
                ws();
                if (peek() != '"') throw err("expected a key");
                string();
                ws();
                if (peek() != ':') throw err("expected ':'");
                pos++;
                out.append(':');
                value();
                ws();
                char c = peek();
                pos++;
                if (c == ',') out.append(',');
                else if (c == '}') {
                    out.append('}');
                    depth--;
                    return;
                } else throw err("expected ',' or '}'");
            }
        }

        void array() {
            if (++depth > 512) throw err("nesting too deep");
            out.append('[');
            pos++;
            ws();
            if (peek() == ']') {
                pos++;
                out.append(']');
                depth--;
                return;
            }
            while (true) {
                value();
                ws();
                char c = peek();
                pos++;
                if (c == ',') out.append(',');
                else if (c == ']') {
                    out.append(']');
                    depth--;
                    return;
                } else throw err("expected ',' or ']'");
            }
        }

        void string() {
            int start = pos;
            pos++;
            while (true) {
                if (pos >= s.length()) throw err("unterminated string");
                char c = s.charAt(pos);
                if (c == '"') {
                    pos++;
                    break;
                }
                if (c < 0x20) throw err("control character in string");
                if (c == '\\') {
                    if (pos + 1 >= s.length()) throw err("unterminated escape");
                    char e = s.charAt(pos + 1);
                    if (e == 'u') {
                        if (pos + 6 > s.length()) throw err("short \\u escape");
                        for (int i = pos + 2; i < pos + 6; i++) {
                            if (Character.digit(s.charAt(i), 16) < 0) throw err("bad \\u escape");
                        }
                        pos += 6;
                        continue;
                    }
                    if ("\"\\/bfnrt".indexOf(e) < 0) throw err("bad escape");
                    pos += 2;
                    continue;
                }
                pos++;
            }
            out.append(s, start, pos);
        }

        void number() {
            int start = pos;
            if (s.charAt(pos) == '-') pos++;
            if (pos >= s.length()) throw err("bad number");
            if (s.charAt(pos) == '0') pos++;
            else if (Character.isDigit(s.charAt(pos))) digits();
            else throw err("bad number");
            if (pos < s.length() && s.charAt(pos) == '.') {
                pos++;
                if (pos >= s.length() || !isDigit(s.charAt(pos))) throw err("bad fraction");
                digits();
            }
            if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
                pos++;
                if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) pos++;
                if (pos >= s.length() || !isDigit(s.charAt(pos))) throw err("bad exponent");
                digits();
            }
            out.append(s, start, pos);
        }

        static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }

        void digits() {
            while (pos < s.length() && isDigit(s.charAt(pos))) pos++;
        }

        void literal(String lit) {
            if (!s.startsWith(lit, pos)) throw err("bad literal");
            pos += lit.length();
            out.append(lit);
        }
    }
}
