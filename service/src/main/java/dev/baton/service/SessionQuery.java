package dev.baton.service;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.baton.config.BatonConfig;
import dev.baton.egress.SnapshotEncoder;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.Identifiers;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.model.Target;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.MissingRange;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.processor.SessionContextProcessor;
import dev.baton.processor.SessionRepository;
import dev.baton.processor.TenantPolicies;
import dev.baton.topology.BatonCodecs;

/**
 * {@code GET /sessions/{tenant}/{session}}: the current context of one session, read-only, from the
 * session state store (an interactive query). The instance that owns the session's partition
 * answers; any other instance forwards the request there ({@code application.server}), so every
 * instance can be asked about every session.
 *
 * <p>The answer holds the state's counters and a preview: the snapshot a hand-off would get now
 * (receiver {@code to_agent}, default the session's primary agent; {@code target} LOCAL or CLAUDE_CLI;
 * optional {@code message_budget_chars}). Nothing is written and no hand-off id is remembered.
 */
final class SessionQuery implements HttpEndpoints.QueryHandler {

    /** Most sessions {@link #sessions} lists (the console's list); past it the answer says {@code truncated}. */
    static final int MAX_LISTED_SESSIONS = 1000;

    static {
        // the generated builders load nested record classes by name (Avro 1.12.2 checks them)
        dev.baton.avro.TrustedClasses.register();
    }

    /** Marks a forwarded request, so that it is never forwarded again (no loops during a rebalance). */
    static final String FORWARDED_HEADER = "X-Baton-Forwarded";

    /** An HTTP answer. */
    record Answer(int status, String contentType, byte[] body) {
        static Answer json(int status, Object node) {
            try {
                return new Answer(status, "application/json", JSON.writeValueAsBytes(node));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        static Answer error(int status, String message) {
            return json(status, JSON.createObjectNode().put("error", message));
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KafkaStreams streams;
    private final BatonConfig config;
    private final HostInfo self;
    private final Policy defaults;
    private final BatonCodecs codecs;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final StreamPartitioner<String, Object> partitioner;
    private TenantPolicies policies;

    SessionQuery(KafkaStreams streams, BatonConfig config, HostInfo self) {
        this.streams = streams;
        this.config = config;
        this.self = self;
        this.defaults = config.defaultPolicy();
        this.codecs = BatonCodecs.forConfig(config);
        this.partitioner = InputPartitioner.named(config.inputPartitioner());
    }

    /**
     * @param forwarded     the request came from another instance (never forwarded again: no loops). A client that
     *                      sets the header itself gains nothing: every instance checks the bearer token itself, and
     *                      where a request is forwarded to comes only from Kafka Streams' metadata
     * @param authorization the request's Authorization header, passed on when the request is forwarded
     */
    @Override
    public Answer query(String tenantId, String sessionId, Map<String, String> params, boolean forwarded,
            String authorization) {
        if (SessionKey.ifValid(tenantId, sessionId).isEmpty()) {
            return Answer.error(400, "tenant and session must be ids (1–128 characters of [A-Za-z0-9._:-])");
        }
        String key = SessionKey.of(tenantId, sessionId).toString();
        KeyQueryMetadata owner;
        try {
            // the partition the producers put the key on (baton.input.partitioner), not necessarily Java's murmur2
            owner = streams.queryMetadataForKey(SessionContextProcessor.SESSION_STORE, key, partitioner);
        } catch (RuntimeException e) {
            return Answer.error(503, "not ready to answer queries: " + e.getMessage());
        }
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            return Answer.error(503, "the session's partition has no owner right now (rebalancing); retry shortly");
        }
        if (!owner.activeHost().equals(self) && !isUnknown(owner.activeHost())) {
            if (forwarded) {
                return Answer.error(503, "the owner of this session moved; retry shortly");
            }
            return forward(owner.activeHost(), tenantId, sessionId, params, authorization);
        }
        return local(tenantId, sessionId, key, params);
    }

    /**
     * The tenant's sessions held by this instance's active stores (not its standbys, not other instances': the
     * console shows which instance answered), in key order, at most {@value #MAX_LISTED_SESSIONS}. Keys are
     * {@code tenant/session} and ids never hold {@code /}, so the prefix {@code tenant/} selects exactly this tenant.
     */
    @Override
    public Answer sessions(String tenantId) {
        if (!Identifiers.isValidId(tenantId)) {
            return Answer.error(400, "the tenant must be an id (1–128 characters of [A-Za-z0-9._:-])");
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("tenant_id", tenantId).put("served_by", self.host() + ":" + self.port());
        ArrayNode list = body.putArray("sessions");
        boolean truncated = false;
        try (KeyValueIterator<String, byte[]> it = this.<String>readOnly(SessionContextProcessor.SESSION_STORE)
                .prefixScan(tenantId + "/", new StringSerializer())) {
            while (it.hasNext()) {
                String key = it.next().key;
                if (list.size() == MAX_LISTED_SESSIONS) {
                    truncated = true;
                    break;
                }
                list.addObject().put("session_id", key.substring(tenantId.length() + 1));
            }
        } catch (InvalidStateStoreException e) {
            return Answer.error(503, "the session store is not queryable right now (" + e.getMessage() + "); retry shortly");
        }
        body.put("truncated", truncated);
        return Answer.json(200, body);
    }

    private static boolean isUnknown(HostInfo host) {
        return host == null || host.host() == null || host.host().isEmpty() || host.port() < 0;
    }

    private Answer local(String tenantId, String sessionId, String key, Map<String, String> params) {
        SessionState state;
        try {
            state = SessionRepository.read(key, readOnly(SessionContextProcessor.SESSION_STORE),
                    readOnly(SessionRepository.ENTRY_STORE), readOnly(SessionRepository.HANDOFF_ID_STORE));
        } catch (InvalidStateStoreException e) {
            return Answer.error(503, "the session store is not queryable right now (" + e.getMessage() + "); retry shortly");
        }
        if (state == null) {
            return Answer.error(404, "no state for session " + key + " (never seen, or expired)");
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("tenant_id", tenantId).put("session_id", sessionId).put("served_by", self.host() + ":" + self.port());
        ObjectNode s = body.putObject("state");
        s.put("turn_count", state.turnCount())
                .put("last_applied_seq", state.lastAppliedSeq())
                .put("next_seq", state.nextSeq())
                .put("held_turns", state.heldCount())
                .put("waiting_handoffs", state.waitingHandoffs())
                .put("remembered_handoff_ids", state.rememberedHandoffIds())
                .put("open_legacy_calls", state.openLegacyCalls())
                .put("primary_agent", state.primaryAgent())
                .put("closed", state.closed())
                .put("duplicate_turns", state.duplicateTurns())
                .put("duplicate_handoffs", state.duplicateHandoffs());
        ArrayNode agents = s.putArray("agents");
        state.agents().forEach(agents::add);
        ArrayNode missing = s.putArray("missing_ranges");
        for (MissingRange r : state.missingRanges()) {
            missing.addObject().put("from", r.from()).put("to", r.to()).put("count", r.count());
        }

        String toAgent = params.getOrDefault("to_agent", state.primaryAgent());
        if (toAgent == null) {
            body.putNull("preview");
            body.put("preview_note", "no agent has spoken yet: give ?to_agent=NAME for a preview");
            return Answer.json(200, body);
        }
        if (!Identifiers.isValidName(toAgent)) {
            return Answer.error(400, "to_agent must be a name (1–64 characters of [A-Za-z0-9_-])");
        }
        Target target;
        Integer budget;
        try {
            target = Target.valueOf(params.getOrDefault("target", "LOCAL").toUpperCase(java.util.Locale.ROOT));
            budget = params.containsKey("message_budget_chars") ? Integer.valueOf(params.get("message_budget_chars")) : null;
        } catch (IllegalArgumentException e) {
            return Answer.error(400, "target is LOCAL or CLAUDE_CLI; message_budget_chars a positive number");
        }
        Handoff preview = new Handoff("preview", null, toAgent, target, null, null, budget);
        Snapshot snapshot = ContextEngine.render(tenantId, sessionId, state,
                new ReadyHandoff(preview, state.lastEventMillis(), null), policyOf(tenantId),
                dev.baton.processor.JTokkitTokenizers.shared());
        try {
            body.set("preview", JSON.readTree(SnapshotEncoder.toJsonLine(snapshot)));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return Answer.json(200, body);
    }

    private <K> ReadOnlyKeyValueStore<K, byte[]> readOnly(String store) {
        return streams.store(StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.<K, byte[]>keyValueStore()));
    }

    /** The tenant's policy from the global tenant-policies store, else the defaults. */
    private synchronized Policy policyOf(String tenantId) {
        if (config.tenantPoliciesTopic().isEmpty()) {
            return defaults;
        }
        if (policies == null) {
            try {
                policies = new TenantPolicies(streams.store(StoreQueryParameters.fromNameAndType(
                        SessionContextProcessor.POLICY_STORE, QueryableStoreTypes.<String, byte[]>keyValueStore())),
                        codecs.policies(), defaults);
            } catch (InvalidStateStoreException e) {
                return defaults;
            }
        }
        return policies.forTenant(tenantId);
    }

    private Answer forward(HostInfo owner, String tenantId, String sessionId, Map<String, String> params,
            String authorization) {
        String query = params.entrySet().stream()
                .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
        URI uri = URI.create("http://" + owner.host() + ":" + owner.port() + "/sessions/" + enc(tenantId) + "/"
                + enc(sessionId) + (query.isEmpty() ? "" : "?" + query));
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                    .header(FORWARDED_HEADER, "1").GET();
            if (authorization != null) {
                request.header("Authorization", authorization); // the owner checks the token again
            }
            HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse("application/json"), response.body());
        } catch (IOException e) {
            return Answer.error(502, "the instance that owns this session (" + owner.host() + ":" + owner.port()
                    + ") did not answer: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Answer.error(503, "interrupted");
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
