package dev.baton.service;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 (any free port) for tests: decodes each protobuf export of
 * {@code POST /v1/traces} and keeps its spans with their resource's {@code service.name}.
 */
final class OtlpLoopbackReceiver implements AutoCloseable {
    /** A received span and the service that exported it. */
    record Received(String service, Span span) {
        String name() {
            return span.getName();
        }
    }

    private final HttpServer server;
    private final List<Received> spans = new CopyOnWriteArrayList<>();

    OtlpLoopbackReceiver() throws IOException {
        HttpEndpoints.applyJdkServerSettings(); // the process's first JDK server fixes its settings
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/traces", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(in.readAllBytes());
                for (ResourceSpans rs : request.getResourceSpansList()) {
                    String service = rs.getResource().getAttributesList().stream()
                            .filter(a -> a.getKey().equals("service.name"))
                            .map(a -> a.getValue().getStringValue()).findFirst().orElse(null);
                    for (ScopeSpans ss : rs.getScopeSpansList()) {
                        for (Span s : ss.getSpansList()) spans.add(new Received(service, s));
                    }
                }
                byte[] body = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
                exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
                if (body.length > 0) exchange.getResponseBody().write(body);
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    /** The traces endpoint, e.g. for {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}. */
    String tracesEndpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
    }

    List<Received> spans() {
        return new ArrayList<>(spans);
    }

    List<Received> named(String name) {
        return spans().stream().filter(s -> s.name().equals(name)).toList();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
