package dev.baton.engine.model;

/** Outcome of one tool step of a trail: a result, an error, or a result cleared at capture time. */
public enum StepStatus { OK, ERROR, CLEARED }
