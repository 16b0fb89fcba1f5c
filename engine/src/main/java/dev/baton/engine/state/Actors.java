package dev.baton.engine.state;

import java.util.ArrayList;
import java.util.List;

/**
 * Who acted (R6, R7, R9): the primary agent (the first ASSISTANT), the first actor and whether another one acted,
 * and the agents the brick's session line names (at most 8; more are only flagged).
 */
final class Actors {
    String primaryAgent;
    String firstActor;
    boolean anotherActorActed;
    final List<String> agents = new ArrayList<>();
    boolean moreAgents;

    void noteActor(String agent) {
        if (firstActor == null) firstActor = agent;
        else if (!firstActor.equals(agent)) anotherActorActed = true;
        if (!agents.contains(agent)) {
            if (agents.size() < 8) agents.add(agent);
            else moreAgents = true;
        }
    }

    void notePrimary(String agent) {
        if (primaryAgent == null) primaryAgent = agent;
    }
}
