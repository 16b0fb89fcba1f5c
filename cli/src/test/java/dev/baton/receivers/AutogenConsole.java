package dev.baton.receivers;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The console output that AutoGen notebooks recorded, two generations. <b>AgentChat</b> ({@code Console}):
 * blocks headed {@code ---------- SOURCE ----------} (or {@code ---------- Type (SOURCE) ----------}), whose body is
 * text, a printed {@code [FunctionCall(...)]} list or a {@code [FunctionExecutionResult(...)]} list. <b>AG2 / AutoGen
 * 0.2</b> (the nested chess game): {@code SENDER (to RECEIVER):} messages ending in a line of 80 dashes, with
 * {@code ***** Suggested tool call (ID): NAME *****} / {@code Arguments:} blocks and
 * {@code ***** Response from calling tool (ID) *****} blocks; ANSI colours are removed.
 */
final class AutogenConsole {
    private static final Pattern AGENTCHAT_HEADER = Pattern.compile("(?m)^-{10} (?:\\w+ \\()?([^()\\n]+?)\\)? -{10}$");
    private static final Pattern USAGE = Pattern.compile("(?m)^\\[Prompt tokens: \\d+, Completion tokens: \\d+]\\n?");
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*m");
    private static final Pattern AG2_HEADER = Pattern.compile("(?m)^([^\\n()]+?) \\(to ([^\\n()]+?)\\):$");
    private static final String RULE = "\n" + "-".repeat(80) + "\n";
    private static final Pattern SUGGESTED = Pattern.compile(
            "\\*{5} Suggested tool call \\(([^)]*)\\): (\\S+) \\*{5}\\nArguments: ?\\n(.*?)\\n\\*{10,}", Pattern.DOTALL);
    private static final Pattern RESPONSE = Pattern.compile(
            "\\*{5} Response from calling tool \\(([^)]*)\\) \\*{5}\\n(.*?)\\n\\*{10,}", Pattern.DOTALL);

    private AutogenConsole() {
    }

    static boolean isAgentChat(String stdout) {
        return AGENTCHAT_HEADER.matcher(stdout).find();
    }

    static boolean isAg2(String stdout) {
        return AG2_HEADER.matcher(ANSI.matcher(stdout).replaceAll("")).find();
    }

    static RecordedSession convertAgentChat(String stdout, SessionBuilder b) {
        Matcher m = AGENTCHAT_HEADER.matcher(stdout);
        List<int[]> heads = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        while (m.find()) {
            heads.add(new int[]{m.start(), m.end()});
            sources.add(m.group(1).strip());
        }
        for (int i = 0; i < heads.size(); i++) {
            int end = i + 1 < heads.size() ? heads.get(i + 1)[0] : stdout.length();
            String body = USAGE.matcher(stdout.substring(heads.get(i)[1], end)).replaceAll("").strip();
            String source = sources.get(i);
            if ("Summary".equals(source) && body.startsWith("Number of messages")) continue; // Console's statistics
            if (body.startsWith("[FunctionCall(")) {
                for (Map<String, String> c : PythonRepr.records(body)) {
                    b.call(source, "", c.get("id"), c.get("name"), c.get("arguments"));
                }
            } else if (body.startsWith("[FunctionExecutionResult(")) {
                for (Map<String, String> r : PythonRepr.records(body)) {
                    b.result(r.get("call_id"), r.getOrDefault("content", ""), "True".equals(r.get("is_error")));
                }
            } else if ("user".equals(source)) {
                b.user(body);
            } else {
                b.say(source, body);
            }
        }
        return b.build();
    }

    static RecordedSession convertAg2(String rawStdout, SessionBuilder b) {
        String stdout = ANSI.matcher(rawStdout).replaceAll("");
        Matcher m = AG2_HEADER.matcher(stdout);
        List<int[]> heads = new ArrayList<>();
        List<String> senders = new ArrayList<>();
        while (m.find()) {
            heads.add(new int[]{m.start(), m.end()});
            senders.add(m.group(1));
        }
        for (int i = 0; i < heads.size(); i++) {
            int next = i + 1 < heads.size() ? heads.get(i + 1)[0] : stdout.length();
            String body = stdout.substring(heads.get(i)[1], next);
            int rule = body.indexOf(RULE);
            if (rule >= 0) body = body.substring(0, rule);
            body = body.strip();
            if (body.isEmpty()) continue; // a header repeated before the tool response it announces
            String sender = senders.get(i);
            Matcher response = RESPONSE.matcher(body);
            if (response.find()) {
                do {
                    b.result(response.group(1), response.group(2), false);
                } while (response.find());
                continue;
            }
            Matcher suggested = SUGGESTED.matcher(body);
            if (suggested.find()) {
                String text = body.substring(0, suggested.start()).strip();
                do {
                    b.call(sender, text, suggested.group(1), suggested.group(2), suggested.group(3).strip());
                } while (suggested.find());
            } else {
                b.say(sender, body);
            }
        }
        return b.build();
    }
}
