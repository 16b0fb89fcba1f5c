package dev.baton.consumer.dialect;

import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One snapshot as the request of one dialect: the {@code body} to send and the call ids the dialect changed
 * ({@code idMap}, in request order; empty when none changed). Arguments objects in the body ({@code input},
 * {@code args}) are raw JSON text, written exactly as the snapshot holds them.
 */
public record ReceiverRequest(Dialect dialect, ObjectNode body, List<IdMapping> idMap) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public ReceiverRequest {
        idMap = List.copyOf(idMap);
    }

    /** The body as compact JSON: the same bytes for the same snapshot, dialect and options. */
    public String toJson() {
        return write(body);
    }

    /** {@code id_map} as a JSON array of {@code {"position", "original", "mapped"}}. */
    public ArrayNode idMapJson() {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (IdMapping m : idMap) {
            out.addObject().put("position", m.position()).put("original", m.original()).put("mapped", m.mapped());
        }
        return out;
    }

    static String write(Object node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
