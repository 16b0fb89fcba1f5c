package dev.baton.replay.importer;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.engine.model.StepStatus;
import dev.baton.replay.importer.ImportReport.Kind;

/** The mapping rules both formats share (docs/import.md): names, ids, arguments, content, time, error status. */
final class Convert {
    final ImportSettings settings;
    final ImportReport report;
    /** Where the document came from: "path" or "path:line". */
    final String source;
    final RawJson.Repairs repairs = new RawJson.Repairs();

    Convert(ImportSettings settings, ImportReport report, String source) {
        this.settings = settings;
        this.report = report;
        this.source = source;
    }

    /** An agent name: mapped to fit §1 when needed (reported); {@code fallback} when absent or blank. */
    String agent(String raw, String fallback) {
        if (raw == null || raw.isBlank()) return fallback;
        String n = Names.name(raw);
        if (!n.equals(raw)) report.mappedOnce(source, Kind.NAME_MAPPED, "agent name", raw, n);
        return n;
    }

    /** A tool name; {@code unknown} when absent (reported). */
    String tool(String raw, String where) {
        if (raw == null || raw.isBlank()) {
            report.add(source + where, Kind.MAPPED, "tool call without a function name: tool 'unknown'");
            return "unknown";
        }
        String n = Names.name(raw);
        if (!n.equals(raw)) report.mappedOnce(source, Kind.NAME_MAPPED, "tool name", raw, n);
        return n;
    }

    /** Call ids of one turn, kept unique within it. */
    final class CallIds {
        private final Set<String> used = new HashSet<>();

        /** The recorded id (mapped when needed), or {@code generated} when absent; unique within the turn. */
        String take(String raw, String generated, String where) {
            String id;
            if (raw == null || raw.isEmpty()) {
                id = generated;
            } else {
                id = Names.id(raw);
                if (!id.equals(raw)) report.mappedOnce(source, Kind.ID_MAPPED, "call id", raw, id);
            }
            if (!used.add(id)) {
                String base = id;
                int n = 2;
                while (!used.add(id = Names.withSuffix(base, ":" + n))) n++;
                report.add(source + where, Kind.ID_MAPPED, "call id " + Texts.quote(base)
                        + " repeated in one step: " + Texts.quote(id));
            }
            return id;
        }
    }

    /**
     * The compact JSON object text of recorded arguments. An object is kept as written; a string holding a JSON
     * object (OpenAI's form) is parsed; anything else becomes {@code {"value": <it>}} (reported); absent or null
     * arguments are {@code {}}.
     */
    String arguments(JsonNode args, String where) {
        if (args == null || args.isNull() || args.isMissingNode()) return "{}";
        if (args.isObject()) return RawJson.write(args);
        if (args.isTextual()) {
            String text = args.textValue();
            if (text.isBlank()) return "{}";
            try {
                JsonNode parsed = RawJson.readOne(text, repairs);
                if (parsed.isObject()) return RawJson.write(parsed);
            } catch (IOException notJson) {
                // fall through: kept as a string value
            }
        }
        ObjectNode wrapped = JsonNodeFactory.instance.objectNode();
        wrapped.set("value", args);
        report.add(source + where, Kind.MAPPED, "arguments are not a JSON object: kept as {\"value\": …}");
        return RawJson.write(wrapped);
    }

    /**
     * The text of recorded content: a string as is; a list of parts (ATIF 1.6+ multimodal content, OpenAI content
     * parts) as its text parts joined by new lines, each image as a line {@code image attachment: PATH (TYPE)};
     * null or absent as empty; any other value as its compact JSON.
     */
    String content(JsonNode content) {
        if (content == null || content.isNull() || content.isMissingNode()) return "";
        if (content.isTextual()) return content.textValue();
        if (content.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode part : content) {
                String t = part(part);
                if (sb.length() > 0) sb.append('\n');
                sb.append(t);
            }
            return sb.toString();
        }
        return RawJson.write(content);
    }

    private String part(JsonNode part) {
        if (part.isTextual()) return part.textValue();
        if (!part.isObject()) return RawJson.write(part);
        String type = RawJson.string(part, "type");
        String text = RawJson.string(part, "text");
        if (text != null && (type == null || type.endsWith("text"))) return text;
        if ("refusal".equals(type) && RawJson.string(part, "refusal") != null) return RawJson.string(part, "refusal");
        if ("image".equals(type) && part.path("source").isObject()) {
            JsonNode s = part.get("source");
            String where = RawJson.string(s, "path") != null ? RawJson.string(s, "path") : RawJson.string(s, "url");
            String media = RawJson.string(s, "media_type");
            return "image attachment: " + (where == null ? "(inline data)" : where) + (media == null ? "" : " (" + media + ")");
        }
        if ("image_url".equals(type)) {
            JsonNode u = part.get("image_url");
            String url = u != null && u.isObject() ? RawJson.string(u, "url") : u != null && u.isTextual() ? u.textValue() : null;
            if (url != null && url.startsWith("data:")) return "image attachment: (inline data, " + url.length() + " characters)";
            return "image attachment: " + (url == null ? "(no url)" : url);
        }
        return RawJson.write(part);
    }

    /**
     * A step timestamp: an ISO-8601 instant (an offset, or none meaning UTC; a space instead of {@code T}
     * accepted), or a number of epoch seconds (milliseconds when above 10^11). Null when absent; unreadable ones
     * are reported and treated as absent.
     */
    Instant time(JsonNode ts, String where) {
        if (ts == null || ts.isNull() || ts.isMissingNode()) return null;
        String n = RawJson.numberText(ts);
        if (n != null) {
            try {
                BigDecimal v = new BigDecimal(n);
                BigDecimal millis = v.abs().compareTo(BigDecimal.valueOf(100_000_000_000L)) > 0 ? v
                        : v.multiply(BigDecimal.valueOf(1000));
                return Instant.ofEpochMilli(millis.setScale(0, java.math.RoundingMode.FLOOR).longValueExact());
            } catch (ArithmeticException | NumberFormatException | java.time.DateTimeException e) {
                report.add(source + where, Kind.MAPPED, "timestamp " + n + " cannot be read: ignored");
                return null;
            }
        }
        if (!ts.isTextual()) {
            report.add(source + where, Kind.MAPPED, "timestamp is not a string or number: ignored");
            return null;
        }
        String s = ts.textValue().trim();
        if (s.length() > 10 && s.charAt(10) == ' ') s = s.substring(0, 10) + 'T' + s.substring(11);
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            try {
                return LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException e2) {
                report.add(source + where, Kind.MAPPED, "timestamp " + Texts.quote(s) + " cannot be read: ignored");
                return null;
            }
        }
    }

    /**
     * ERROR when the recorded object says so, OK otherwise (no guessing from the text): {@code is_error: true},
     * {@code error: true}, {@code status} one of error / failed / failure / timeout (any case), or an integer
     * {@code exit_code} / {@code returncode} other than 0.
     */
    static StepStatus status(JsonNode o) {
        if (o == null || !o.isObject()) return StepStatus.OK;
        if (o.path("is_error").asBoolean(false) && o.get("is_error").isBoolean()) return StepStatus.ERROR;
        if (o.path("error").isBoolean() && o.get("error").booleanValue()) return StepStatus.ERROR;
        String status = RawJson.string(o, "status");
        if (status != null) {
            String s = status.toLowerCase(Locale.ROOT);
            if (s.equals("error") || s.equals("failed") || s.equals("failure") || s.equals("timeout")) return StepStatus.ERROR;
        }
        for (String f : new String[] {"exit_code", "returncode"}) {
            Long code = RawJson.asLong(o.get(f));
            if (code != null && code != 0) return StepStatus.ERROR;
        }
        return StepStatus.OK;
    }

    /** Reports strings repaired while parsing text held in strings (e.g. OpenAI arguments). */
    void reportRepairs() {
        if (repairs.loneSurrogates > 0) {
            report.add(source, Kind.MAPPED, repairs.loneSurrogates + " lone UTF-16 surrogate(s) replaced by U+FFFD");
            repairs.loneSurrogates = 0;
        }
    }
}
