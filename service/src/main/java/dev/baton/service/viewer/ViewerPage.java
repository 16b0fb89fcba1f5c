package dev.baton.service.viewer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The snapshot viewer's page: one HTML document with its stylesheet and script inline (both written by hand, in this
 * package's resources), for the report file of {@code baton view} and for {@code /console} of {@code baton run}.
 *
 * <p>The page carries a Content-Security-Policy that allows only its own script and stylesheet, by SHA-256 hash, and
 * nothing else: no other script, no inline event handler, no image, no frame, no form target; the report may connect
 * nowhere, the console only to its own origin. Snapshot data is never markup: it travels in
 * {@code <script type="application/json">} elements (never run) escaped by {@link #scriptSafe}, and the script puts it
 * on the page with {@code textContent} only.
 */
public final class ViewerPage {

    /** The document's title (a test checks that no snapshot can change it). */
    public static final String TITLE = "Baton snapshots";

    private static final String CSS = resource("viewer.css");
    private static final String JS = resource("viewer.js");

    private ViewerPage() {
    }

    /** Which page: the report file, or the console served by {@code baton run}. */
    public enum Mode {
        REPORT("report"), CONSOLE("console");

        private final String attribute;

        Mode(String attribute) {
            this.attribute = attribute;
        }
    }

    /**
     * The policy of the page. {@code frame-ancestors} only works as a header, so the console's header adds it (see
     * {@link #consoleHeaderPolicy()}).
     */
    public static String contentSecurityPolicy(Mode mode) {
        return "default-src 'none'; script-src '" + sha256(JS) + "'; style-src '" + sha256(CSS) + "'; img-src 'none'; "
                + "font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
                + (mode == Mode.CONSOLE ? "; connect-src 'self'" : "");
    }

    /** The Content-Security-Policy header of {@code /console}. */
    public static String consoleHeaderPolicy() {
        return contentSecurityPolicy(Mode.CONSOLE) + "; frame-ancestors 'none'";
    }

    /** Everything of the page before the data elements. */
    public static String head(Mode mode) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                + "<meta http-equiv=\"Content-Security-Policy\" content=\"" + contentSecurityPolicy(mode) + "\">\n"
                + "<meta name=\"referrer\" content=\"no-referrer\">\n"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                + "<title>" + (mode == Mode.CONSOLE ? "Baton console" : TITLE) + "</title>\n"
                + "<style>" + CSS + "</style></head>\n"
                + "<body data-mode=\"" + mode.attribute + "\"><div id=\"app\"></div>\n";
    }

    /** One data element: {@code json} (compact JSON) as the text of a script element that is never run. */
    public static String dataElement(String id, String json) {
        return "<script type=\"application/json\" id=\"" + id + "\">" + scriptSafe(json) + "</script>\n";
    }

    /** Everything of the page after the data elements: the script, which reads them. */
    public static String tail() {
        return "<script>" + JS + "</script>\n</body></html>\n";
    }

    /** The console page (no data: it asks the server, with the user's token). */
    public static String console() {
        return head(Mode.CONSOLE) + tail();
    }

    /**
     * JSON that can sit inside a script element: {@code <}, {@code >} and {@code &} (so neither {@code </script>} nor
     * {@code <!--} can appear) and U+2028/U+2029 are written as JSON escapes. In compact JSON those characters only
     * occur inside strings, where the escape means the same character, so {@code JSON.parse} gives back the same value.
     */
    public static String scriptSafe(String json) {
        StringBuilder out = new StringBuilder(json.length() + 16);
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            switch (c) {
                case '<' -> out.append("\\u003c");
                case '>' -> out.append("\\u003e");
                case '&' -> out.append("\\u0026");
                case '\u2028' -> out.append("\\u2028");
                case '\u2029' -> out.append("\\u2029");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    private static String sha256(String text) {
        try {
            return "sha256-" + Base64.getEncoder().encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = ViewerPage.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing resource " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
