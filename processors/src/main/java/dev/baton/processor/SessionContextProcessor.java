package dev.baton.processor;

import dev.baton.deadletter.DeadLetters;
import dev.baton.deadletter.ErrorCode;
import dev.baton.engine.ContextEngine;
import dev.baton.engine.model.Handoff;
import dev.baton.engine.model.SessionKey;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.snapshot.Snapshot;
import dev.baton.engine.state.HandoffOutcome;
import dev.baton.engine.state.ReadyHandoff;
import dev.baton.engine.state.SessionState;
import dev.baton.engine.state.SessionStateCodec;
import dev.baton.engine.state.TurnOutcome;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The stateful heart of the topology: keeps one {@link SessionState} per session in the RocksDB store
 * {@value #SESSION_STORE} (key {@code tenant/session}, value {@link SessionStateCodec} bytes, changelogged), applies
 * each decoded event to it and forwards a {@link Snapshot} for every hand-off that becomes ready.
 *
 * <p>Per event: load the state (or start empty), {@code touch(now)}, then
 * <ul>
 *   <li>Turn: {@code offerTurn}; APPLIED/HELD count as applied, DUPLICATE is counted, LATE_TURN is dead-lettered with
 *       the record's original bytes; hand-offs released by the turn are rendered;</li>
 *   <li>Handoff: {@code offerHandoff}; DUPLICATE is counted, READY (and older waiting hand-offs pushed out by the
 *       waiting bound) are rendered, PARKED waits;</li>
 *   <li>Closed: {@code close(now)}.</li>
 * </ul>
 * and the state is stored back. The whole record is handled atomically: the snapshots are rendered before anything is
 * stored or forwarded, so an unexpected failure leaves the stored state as it was and dead-letters the record with
 * {@link ErrorCode#INTERNAL} (logged once per record) instead of killing the application.
 *
 * <p>A record with header {@value #CONTROL_HEADER} = {@value #SETTLE} (value ignored) is the backfill's end-of-input
 * signal for its session: every held gap is settled and every waiting hand-off released at once
 * ({@code settleAll}), without waiting for the wall clock.
 *
 * <p>With wall-clock punctuation on, a punctuator runs every {@code punctuateInterval} and visits only the sessions
 * that the timer index ({@link SessionTimerIndex}, store {@value #TIMER_STORE}) says have something due: it calls
 * {@code onWallClock}, renders what is released, and deletes sessions that {@code expired}. Backfill mode turns
 * punctuation off; closed sessions then keep their state until the end.
 *
 * <p>"Now" is always {@code context.currentSystemTimeMs()} (wall clock): gap holds, hand-off waits, grace and TTL
 * are measured in processing time, not event time. Snapshots themselves never depend on it (R10).
 */
public final class SessionContextProcessor implements Processor<String, InboundEvent, String, Object> {
    public static final String SESSION_STORE = "baton-session-state";
    public static final String TIMER_STORE = "baton-session-timers";
    public static final String POLICY_STORE = "baton-tenant-policies";
    public static final String CONTROL_HEADER = "baton.control";
    public static final String SETTLE = "settle";

    private static final Logger LOG = LoggerFactory.getLogger(SessionContextProcessor.class);

    private final SessionProcessorOptions options;
    private ProcessorContext<String, Object> context;
    /** Encoded bytes of the states the decoded-state cache may stand for, per processor (one per task). */
    static final long DECODED_CACHE_BYTES = 32L * 1024 * 1024;

    private KeyValueStore<String, byte[]> sessions;
    /** Decoded states of busy sessions, checked against the stored bytes (see {@link DecodedStateCache}). */
    private final DecodedStateCache decoded = new DecodedStateCache(DECODED_CACHE_BYTES);
    private SessionTimerIndex timers;
    private SessionProvenance provenance;
    private TenantPolicies policies;
    private BatonMetrics metrics;
    private Cancellable punctuator;

    public SessionContextProcessor(SessionProcessorOptions options) {
        this.options = options;
    }

    /** The persistent, changelogged session store (String key, SessionStateCodec bytes). */
    public static StoreBuilder<KeyValueStore<String, byte[]>> sessionStoreBuilder() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(SESSION_STORE), Serdes.String(),
                Serdes.ByteArray()).withLoggingEnabled(Map.of()).withCachingEnabled();
    }

    /** The persistent, changelogged timer index (see {@link SessionTimerIndex}). */
    public static StoreBuilder<KeyValueStore<String, Long>> timerStoreBuilder() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TIMER_STORE), Serdes.String(),
                Serdes.Long()).withLoggingEnabled(Map.of()).withCachingEnabled();
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.sessions = context.getStateStore(SESSION_STORE);
        decoded.clear();
        this.timers = new SessionTimerIndex(context.getStateStore(TIMER_STORE));
        this.provenance = new SessionProvenance(context.getStateStore(SessionProvenance.STORE));
        ReadOnlyKeyValueStore<String, byte[]> policyStore =
                options.policyStore() == null ? null : context.getStateStore(options.policyStore());
        this.policies = new TenantPolicies(policyStore, options.policyDecoder(), options.defaultPolicy());
        this.metrics = new BatonMetrics(context.metrics(), context.taskId().toString(), "session");
        if (options.wallClockPunctuation()) {
            punctuator = context.schedule(options.punctuateInterval(), PunctuationType.WALL_CLOCK_TIME,
                    this::punctuate);
        }
    }

    @Override
    public void process(Record<String, InboundEvent> record) {
        try {
            Header control = record.headers().lastHeader(CONTROL_HEADER);
            if (control != null) settle(record);
            else handle(record);
        } catch (RuntimeException e) {
            // e.g. the schema registry is unreachable: fail the task and retry, never dead-letter
            if (DeadLetters.isTransient(e)) throw e;
            LOG.error("Unexpected failure on record of session {} ({}); dead-lettered as INTERNAL", record.key(),
                    sourceOf(), e);
            InboundEvent ev = record.value();
            byte[] key = ev != null ? ev.rawKey() : utf8(record.key());
            byte[] value = ev != null ? ev.rawValue() : null;
            deadLetter(record, key, value, ErrorCode.INTERNAL, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private void handle(Record<String, InboundEvent> record) {
        InboundEvent ev = record.value();
        long now = context.currentSystemTimeMs();
        String key = ev.sessionKey();
        Policy policy = policies.forTenant(ev.tenantId());
        byte[] stored = sessions.get(key);
        SessionState state = decoded.take(key, stored);
        long dueBefore = indexed() && stored != null ? SessionTimerIndex.indexDue(state, policy)
                : SessionTimerIndex.NEVER;
        // A session past its grace/TTL that the punctuator has not reached yet behaves as if it had been deleted.
        boolean fresh = stored == null;
        if (indexed() && stored != null && state.expired(now, policy)) {
            metrics.expiredSession();
            state = SessionState.empty();
            fresh = true;
        }
        state.touch(now);

        List<ReadyHandoff> ready = new ArrayList<>();
        Runnable count = () -> { };
        boolean late = false;
        boolean accepted = false; // applied to the state: extends the session's input range (provenance)
        if (ev.turn() != null) {
            TurnOutcome outcome = state.offerTurn(ev.turn(), policy, now);
            ready.addAll(outcome.released());
            switch (outcome.kind()) {
                case APPLIED, HELD -> {
                    count = metrics::appliedTurn;
                    accepted = true;
                }
                case DUPLICATE -> count = metrics::duplicateTurn;
                case LATE_TURN -> late = true;
            }
        } else if (ev.handoff() != null) {
            Handoff handoff = ev.handoff();
            HandoffOutcome outcome = state.offerHandoff(handoff, ev.occurredAtMillis(), policy, now);
            ready.addAll(outcome.ready());
            switch (outcome.kind()) {
                case DUPLICATE -> count = metrics::duplicateHandoff;
                case PARKED -> {
                    count = metrics::parkedHandoff;
                    accepted = true;
                }
                case READY -> accepted = true;
            }
        } else if (ev.closed()) {
            state.close(now);
            accepted = true;
        }

        // Render before storing or forwarding anything: a failure then leaves no half-applied record behind.
        List<Snapshot> snapshots = render(ev.tenantId(), ev.sessionId(), state, ready, policy);
        byte[] encoded = SessionStateCodec.encode(state);
        sessions.put(key, encoded);
        decoded.keep(key, encoded, state);
        if (indexed()) timers.move(key, dueBefore, SessionTimerIndex.indexDue(state, policy));
        if (accepted) provenance.applied(key, context.recordMetadata().orElse(null), record.headers(), fresh);
        count.run();
        forwardSnapshots(key, snapshots, record.timestamp());
        if (late) {
            deadLetter(record, ev.rawKey(), ev.rawValue(), ErrorCode.LATE_TURN,
                    "turn seq " + ev.turn().seq() + " arrived after it was recorded missing");
        }
    }

    /** With wall-clock punctuation off (backfill) nothing is ever due, so the timer index is not kept. */
    private boolean indexed() {
        return options.wallClockPunctuation();
    }

    /** The backfill's end-of-input signal for one session: settle every gap and waiting hand-off now. */
    private void settle(Record<String, InboundEvent> record) {
        String key = record.key();
        byte[] bytes = sessions.get(key);
        if (bytes == null) return; // nothing was ever applied for this session: nothing to settle
        SessionKey ids = parseKey(key);
        Policy policy = policies.forTenant(ids.tenantId());
        SessionState state = decoded.take(key, bytes);
        List<ReadyHandoff> ready = state.settleAll(policy);
        List<Snapshot> snapshots = render(ids.tenantId(), ids.sessionId(), state, ready, policy);
        byte[] encoded = SessionStateCodec.encode(state);
        sessions.put(key, encoded);
        decoded.keep(key, encoded, state);
        forwardSnapshots(key, snapshots, record.timestamp());
    }

    /**
     * Wall-clock punctuation: visits the sessions the timer index has due, releases what waited long enough and
     * deletes expired sessions. A failure on one session is logged and skips that session only.
     */
    void punctuate(long now) {
        for (String key : timers.takeDue(now, options.maxSessionsPerPunctuation())) {
            try {
                visit(key, now);
            } catch (RuntimeException e) {
                if (DeadLetters.isTransient(e)) throw e;
                metrics.punctuationFailure();
                LOG.error("Wall-clock visit of session {} failed; skipped until its next event", key, e);
            }
        }
    }

    private void visit(String key, long now) {
        byte[] before = sessions.get(key);
        if (before == null) return; // a left-over entry of a deleted session
        SessionKey ids = parseKey(key);
        Policy policy = policies.forTenant(ids.tenantId());
        SessionState state = decoded.take(key, before);
        List<ReadyHandoff> ready = state.onWallClock(now, policy);
        List<Snapshot> snapshots = render(ids.tenantId(), ids.sessionId(), state, ready, policy);
        if (state.expired(now, policy)) {
            sessions.delete(key);
            provenance.delete(key);
            metrics.expiredSession();
        } else {
            byte[] after = SessionStateCodec.encode(state);
            if (!Arrays.equals(before, after)) sessions.put(key, after);
            decoded.keep(key, after, state);
            long due = SessionTimerIndex.indexDue(state, policy);
            // onWallClock handled everything due by now; should the state still claim otherwise, look again at the
            // next punctuation rather than on every scan of this one.
            if (due <= now) due = now + options.punctuateInterval().toMillis();
            timers.move(key, SessionTimerIndex.NEVER, due);
        }
        // Punctuation has no input record: the snapshot's timestamp is the wall clock of its release.
        forwardSnapshots(key, snapshots, now);
    }

    private List<Snapshot> render(String tenantId, String sessionId, SessionState state, List<ReadyHandoff> ready,
                                  Policy policy) {
        if (ready.isEmpty()) return List.of();
        List<Snapshot> out = new ArrayList<>(ready.size());
        for (ReadyHandoff handoff : ready) {
            long start = System.nanoTime();
            out.add(ContextEngine.render(tenantId, sessionId, state, handoff, policy, options.tokenizers()));
            metrics.renderNanos(System.nanoTime() - start);
        }
        return out;
    }

    private void forwardSnapshots(String key, List<Snapshot> snapshots, long timestamp) {
        if (snapshots.isEmpty()) return;
        dev.baton.engine.snapshot.Provenance range = provenance.of(key);
        for (Snapshot snapshot : snapshots) {
            snapshot = snapshot.withProvenance(range);
            // fresh headers: the input's headers (e.g. baton.control) do not belong on the output
            context.forward(new Record<String, Object>(key, snapshot, timestamp, new RecordHeaders()),
                    options.snapshotChild());
            metrics.snapshotEmitted();
        }
    }

    private void deadLetter(Record<String, InboundEvent> record, byte[] key, byte[] value, ErrorCode code,
                            String message) {
        DeadLetters.forward(context, options.deadLetterChild(), record.timestamp(), key, value, code, message);
    }

    private String sourceOf() {
        return DeadLetters.sourceOf(context);
    }

    private static SessionKey parseKey(String key) {
        return SessionKey.parse(key).orElseThrow(() -> new IllegalArgumentException("not a session key: " + key));
    }

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        if (punctuator != null) punctuator.cancel();
        if (metrics != null) metrics.close();
    }
}
