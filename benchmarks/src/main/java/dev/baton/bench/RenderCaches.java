package dev.baton.bench;

import dev.baton.engine.layout.LayoutCache;

/**
 * The render cache a benchmark holds beside each state it renders again and again, as the processor does
 * ({@link LayoutCache}). {@code -Dbaton.layoutMemo=off} gives {@link LayoutCache#none()} instead: the same output,
 * every turn laid out at every hand-off (the cost without the cache). The switch is the benchmarks' own: the engine
 * reads no system property.
 */
final class RenderCaches {
    private RenderCaches() {
    }

    /** Read once: a benchmark compares one setting per JVM. */
    static final boolean ON = !"off".equals(System.getProperty("baton.layoutMemo"));

    /** A new render cache for one state (or none, when switched off). */
    static LayoutCache forState() {
        return ON ? new LayoutCache() : LayoutCache.none();
    }
}
