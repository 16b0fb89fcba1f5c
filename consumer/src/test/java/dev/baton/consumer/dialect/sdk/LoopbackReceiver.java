package dev.baton.consumer.dialect.sdk;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A stand-in for the providers' endpoints on 127.0.0.1 (a free port): it records every request's path and exact
 * body and answers with the smallest reply each SDK parses (a chat completion, a response, a message, a
 * generateContent reply). Nothing leaves the machine.
 */
final class LoopbackReceiver implements AutoCloseable {

    /** One request as it arrived. */
    record Recorded(String method, String path, String body) {
    }

    private static final String CHAT_COMPLETION = """
            {"id":"chatcmpl-1","object":"chat.completion","created":0,"model":"m-test","choices":[{"index":0,
             "message":{"role":"assistant","content":"ok","refusal":null},"finish_reason":"stop","logprobs":null}]}""";
    private static final String RESPONSE = """
            {"id":"resp_1","object":"response","created_at":0,"model":"m-test","status":"completed","output":[
             {"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[
              {"type":"output_text","text":"ok","annotations":[]}]}],
             "parallel_tool_calls":true,"tool_choice":"auto","tools":[],"error":null,"incomplete_details":null,
             "instructions":null,"metadata":{},"temperature":1.0,"top_p":1.0}""";
    private static final String MESSAGE = """
            {"id":"msg_1","type":"message","role":"assistant","model":"m-test","content":[{"type":"text","text":"ok"}],
             "stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}""";
    private static final String GENERATE_CONTENT = """
            {"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP","index":0}],
             "usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}""";

    private final HttpServer server;
    private final List<Recorded> requests = new ArrayList<>();

    LoopbackReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
    }

    /** {@code http://127.0.0.1:PORT}, the base URL to give an SDK client. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The only request received since the last call (fails when there was none or more than one). */
    synchronized Recorded takeOnly() {
        if (requests.size() != 1) {
            throw new AssertionError("expected exactly one request, got " + requests);
        }
        Recorded only = requests.get(0);
        requests.clear();
        return only;
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getPath();
            synchronized (this) {
                requests.add(new Recorded(exchange.getRequestMethod(), path, body));
            }
            String reply = path.endsWith("/chat/completions") ? CHAT_COMPLETION
                    : path.endsWith("/responses") ? RESPONSE
                    : path.endsWith("/v1/messages") ? MESSAGE
                    : path.endsWith(":generateContent") ? GENERATE_CONTENT
                    : null;
            byte[] bytes = (reply == null ? "{\"error\":\"unknown path\"}" : reply).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(reply == null ? 404 : 200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
