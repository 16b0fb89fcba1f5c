package dev.baton.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromQlTest {

    @Test
    void shouldFindTheMetricNamesOfAnExpression() {
        assertThat(PromQl.metricNames(
                "sum by (code) (rate(baton_dead_letters_total{code!=\"LATE_TURN\", job=~\"baton.*\"}[5m])) "
                        + "/ ignoring(code) group_left sum(rate(baton_applied_turns_total[5m] offset 1h)) > 0.05"))
                .containsExactly("baton_applied_turns_total", "baton_dead_letters_total");
        assertThat(PromQl.metricNames("max(kafka_stream_client_state) == bool 2 and on() vector(1)"))
                .containsExactly("kafka_stream_client_state");
        assertThat(PromQl.metricNames("histogram_quantile(0.99, sum by (le) (rate(x_bucket{a=\"b\"}[$__rate_interval])))"))
                .containsExactly("x_bucket");
    }

    @Test
    void shouldFindMetricNamesInMarkdownCode() {
        assertThat(MetricNames.inMarkdown("watch `baton_dead_letters_total{code=…}` and `rate(jvm_gc_pause_seconds_count[5m])`;"
                + " `baton_*` is a family; `baton.session-events` is a topic; `kafka_stream_*`"))
                .containsExactly("baton_dead_letters_total", "jvm_gc_pause_seconds_count");
    }
}
