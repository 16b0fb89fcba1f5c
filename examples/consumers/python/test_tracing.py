"""tracing.py: the W3C traceparent rules and the child traceparent sent on the agent call (python3 -m unittest)."""

import unittest

import tracing

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "00f067aa0ba902b7"
VALID = "00-%s-%s-01" % (TRACE, SPAN)


class TraceparentTest(unittest.TestCase):
    def test_should_read_a_valid_traceparent(self):
        self.assertEqual(tracing.parse_traceparent(VALID), tracing.TraceParent(TRACE, SPAN, "01"))

    def test_should_refuse_what_w3c_trace_context_calls_invalid(self):
        for value in [None, "", "garbage", VALID.upper(), "00-%s-%s-01" % ("0" * 32, SPAN),
                      "00-%s-%s-01" % (TRACE, "0" * 16), "ff-%s-%s-01" % (TRACE, SPAN), VALID + "-extra",
                      "00-%s-%s-1" % (TRACE, SPAN), "00-%s-%s-01" % (TRACE[:-1], SPAN)]:
            with self.subTest(value=value):
                self.assertIsNone(tracing.parse_traceparent(value))

    def test_should_accept_fields_a_later_version_appends(self):
        parsed = tracing.parse_traceparent("01-%s-%s-01-later" % (TRACE, SPAN))
        self.assertEqual(parsed.trace_id, TRACE)

    def test_should_read_the_last_header_of_a_kafka_record(self):
        headers = [("traceparent", b"old"), ("other", b"x"), ("traceparent", VALID.encode())]
        self.assertEqual(tracing.header(headers, "traceparent"), VALID)
        self.assertIsNone(tracing.header(None, "traceparent"))

    def test_should_give_the_agent_call_a_child_in_the_same_trace(self):
        child = tracing.parse_traceparent(tracing.child_traceparent(tracing.parse_traceparent(VALID)))
        self.assertEqual(child.trace_id, TRACE)
        self.assertNotEqual(child.span_id, SPAN)
        self.assertEqual(child.flags, "01")
        unsampled = tracing.child_traceparent(tracing.parse_traceparent("00-%s-%s-00" % (TRACE, SPAN)))
        self.assertTrue(unsampled.endswith("-00"))

    def test_should_start_a_new_trace_without_a_parent(self):
        first = tracing.parse_traceparent(tracing.child_traceparent(None))
        second = tracing.parse_traceparent(tracing.child_traceparent(None))
        self.assertIsNotNone(first)
        self.assertNotEqual(first.trace_id, second.trace_id)


if __name__ == "__main__":
    unittest.main()


class HandlerHookTest(unittest.TestCase):
    def test_should_give_the_handler_a_child_of_the_records_span_and_nothing_after_it(self):
        baton = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        self.assertIsNone(tracing.agent_call_traceparent())
        token = tracing.handling([("traceparent", baton.encode("ascii"))])
        try:
            inside = tracing.parse_traceparent(tracing.agent_call_traceparent())
            self.assertEqual(inside.trace_id, "0af7651916cd43dd8448eb211c80319c")
            self.assertNotEqual(inside.span_id, "b7ad6b7169203331")
        finally:
            tracing.done(token)
        self.assertIsNone(tracing.agent_call_traceparent())
