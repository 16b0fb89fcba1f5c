package dev.baton.replay.importer;

import java.util.Locale;

import dev.baton.engine.model.Target;

/**
 * How {@code baton import} (and {@code baton backfill --from}) converts recorded files.
 *
 * @param format           ATIF trajectories or OpenAI-style chat logs
 * @param tenantId         the tenant of every session (must already be a valid id)
 * @param sessionIdFrom    where a session's id comes from
 * @param agentNameFrom    where an agent turn's agent name comes from
 * @param includeReasoning ATIF {@code reasoning_content} included as the agent's text (default: left out)
 * @param handoffLastTo    when set, one hand-off to this agent after the last turn of every session
 * @param handoffTarget    the target of those hand-offs
 * @param maxRecordBytes   key plus value bytes of every written event stay within this (the input topic's limit)
 */
public record ImportSettings(Format format, String tenantId, SessionIdFrom sessionIdFrom, AgentNameFrom agentNameFrom,
                             boolean includeReasoning, String handoffLastTo, Target handoffTarget, int maxRecordBytes) {

    /** The contract's default record limit (1 MiB, like Kafka's). */
    public static final int DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;
    /** Below this a record cannot hold the envelope and a useful turn. */
    public static final int MIN_MAX_RECORD_BYTES = 4096;

    public ImportSettings {
        if (format == null) throw new IllegalArgumentException("format is required");
        if (!Names.validId(tenantId)) {
            throw new IllegalArgumentException("tenant " + Texts.quote(tenantId)
                    + " is not an id (1–128 characters of [A-Za-z0-9._:-])");
        }
        if (sessionIdFrom == null) sessionIdFrom = SessionIdFrom.AUTO;
        if (agentNameFrom == null) agentNameFrom = AgentNameFrom.MODEL;
        if (handoffTarget == null) handoffTarget = Target.LOCAL;
        if (handoffLastTo != null && !Names.validName(handoffLastTo)) {
            throw new IllegalArgumentException("hand-off receiver " + Texts.quote(handoffLastTo)
                    + " is not an agent name (1–64 characters of [A-Za-z0-9_-])");
        }
        if (maxRecordBytes < MIN_MAX_RECORD_BYTES) {
            throw new IllegalArgumentException("the record limit must be at least " + MIN_MAX_RECORD_BYTES + " bytes");
        }
    }

    /** Defaults for a format and tenant. */
    public static ImportSettings defaults(Format format, String tenantId) {
        return new ImportSettings(format, tenantId, SessionIdFrom.AUTO, AgentNameFrom.MODEL, false, null, Target.LOCAL,
                DEFAULT_MAX_RECORD_BYTES);
    }

    public ImportSettings withHandoffLast(String toAgent, Target target) {
        return new ImportSettings(format, tenantId, sessionIdFrom, agentNameFrom, includeReasoning, toAgent, target,
                maxRecordBytes);
    }

    public ImportSettings withReasoning(boolean include) {
        return new ImportSettings(format, tenantId, sessionIdFrom, agentNameFrom, include, handoffLastTo, handoffTarget,
                maxRecordBytes);
    }

    public ImportSettings withSessionIdFrom(SessionIdFrom from) {
        return new ImportSettings(format, tenantId, from, agentNameFrom, includeReasoning, handoffLastTo, handoffTarget,
                maxRecordBytes);
    }

    public ImportSettings withAgentNameFrom(AgentNameFrom from) {
        return new ImportSettings(format, tenantId, sessionIdFrom, from, includeReasoning, handoffLastTo, handoffTarget,
                maxRecordBytes);
    }

    public ImportSettings withMaxRecordBytes(int bytes) {
        return new ImportSettings(format, tenantId, sessionIdFrom, agentNameFrom, includeReasoning, handoffLastTo,
                handoffTarget, bytes);
    }

    /** The recorded formats. */
    public enum Format {
        ATIF("atif"), OPENAI_CHAT("openai-chat"), OTEL_GENAI("otel-genai");

        private final String cliName;

        Format(String cliName) {
            this.cliName = cliName;
        }

        public String cliName() {
            return cliName;
        }

        /** {@code atif}, {@code openai-chat} or {@code otel-genai} (case-insensitive; {@code _} for {@code -} accepted). */
        public static Format parse(String s) {
            String k = s.toLowerCase(Locale.ROOT).replace('_', '-');
            for (Format f : values()) if (f.cliName.equals(k)) return f;
            throw new IllegalArgumentException("unknown format '" + s + "': expected atif, openai-chat or otel-genai");
        }
    }

    /** Where a session's id comes from (docs/import.md, "Sessions"). */
    public enum SessionIdFrom {
        /** The recorded id ({@code session_id}, then {@code trajectory_id} / {@code id}), else the file name. */
        AUTO,
        /** ATIF {@code session_id} / chat {@code session_id} or {@code id}, else the file name. */
        SESSION_ID,
        /** ATIF {@code trajectory_id}, else as AUTO. */
        TRAJECTORY_ID,
        /** The file name without its extensions (plus the line for files holding several). */
        FILE
    }

    /** Where an agent turn's agent name comes from. */
    public enum AgentNameFrom {
        /** The model: ATIF step {@code model_name}, else {@code agent.model_name}, else {@code agent.name}. */
        MODEL,
        /** The agent system: ATIF {@code agent.name}; chat message {@code name}. */
        AGENT
    }
}
