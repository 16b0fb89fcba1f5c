package dev.baton.service;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import dev.baton.engine.model.Identifiers;
import dev.baton.engine.model.Target;

/**
 * The query string of {@code /sessions/{tenant}/{session}}, checked whole before any lookup: only {@code to_agent} (an
 * agent name), {@code target} ({@code LOCAL} or {@code CLAUDE_CLI}) and {@code message_budget_chars} (1 to 2^31-1, as
 * a hand-off's own field), each at most once. Anything else — an unknown or repeated name, a value out of range, a
 * malformed percent-encoding — is a 400 with the reason, never a guess.
 */
final class QueryParameters {

    /** A query string that cannot be answered: the message says why. */
    static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message, null, false, false);
        }
    }

    private QueryParameters() {
    }

    /** The parameters of {@code rawQuery} (null or empty: none), or {@link Invalid}. */
    static Map<String, String> parse(String rawQuery) throws Invalid {
        Map<String, String> out = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return out;
        }
        for (String pair : rawQuery.split("&", -1)) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new Invalid("query parameters are NAME=VALUE pairs joined by &");
            }
            String name = decode(pair.substring(0, eq));
            String value = decode(pair.substring(eq + 1));
            if (out.put(name, value) != null) {
                throw new Invalid("query parameter " + name + " is given twice");
            }
            check(name, value);
        }
        return out;
    }

    private static void check(String name, String value) throws Invalid {
        switch (name) {
            case "to_agent" -> {
                if (!Identifiers.isValidName(value)) {
                    throw new Invalid("to_agent must be an agent name (1–64 characters of [A-Za-z0-9_-])");
                }
            }
            case "target" -> {
                try {
                    Target.valueOf(value.toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new Invalid("target must be LOCAL or CLAUDE_CLI");
                }
            }
            case "message_budget_chars" -> {
                // digits only (no sign, no spaces): Integer.parseInt alone would take "+5" and "-1"
                if (!value.matches("[0-9]{1,10}") || Long.parseLong(value) < 1 || Long.parseLong(value) > Integer.MAX_VALUE) {
                    throw new Invalid("message_budget_chars must be a whole number from 1 to " + Integer.MAX_VALUE);
                }
            }
            default -> throw new Invalid("unknown query parameter " + printable(name)
                    + " (known: to_agent, target, message_budget_chars)");
        }
    }

    /** A path segment that is an id of the contract, and not a dot segment ({@code .} or {@code ..}). */
    static boolean isQueryableId(String s) {
        // "." and ".." are ids by their characters, but as path segments every HTTP client, proxy and the forwarding
        // between instances may resolve them away (RFC 3986, 5.2.4): they can never name a session reliably
        return Identifiers.isValidId(s) && !s.equals(".") && !s.equals("..");
    }

    private static String decode(String s) throws Invalid {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new Invalid("malformed percent-encoding");
        }
    }

    /** A name for an error message: at most 64 characters, printable ASCII only (nothing a client put in a log). */
    private static String printable(String s) {
        String cut = s.length() > 64 ? s.substring(0, 64) + "…" : s;
        return "'" + cut.replaceAll("[^\\x20-\\x7e]", "?") + "'";
    }
}
