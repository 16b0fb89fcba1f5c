"""Trace propagation without an SDK (docs/operations.md, "Tracing"; examples/consumers/README.md, "Tracing").

Debian packages no OpenTelemetry for Python and this kit installs nothing from PyPI, so it does not record spans: it
only carries the trace on. A snapshot record's ``traceparent`` header names Baton's ``baton.handoff`` span;
:func:`parse_traceparent` reads it by the W3C Trace Context rules and :func:`child_traceparent` gives the
``traceparent`` to send on the agent call's HTTP request, so that the receiving agent's (or its gateway's) span is a
child of Baton's in the same trace. A record without a valid header gives a new trace. The hook in consumer.py::

    parent = tracing.parse_traceparent(tracing.header(msg.headers(), "traceparent"))
    headers = {"traceparent": tracing.child_traceparent(parent)}  # added to the agent call's request

``tracestate`` (if any) is passed on unchanged with :func:`header`.
"""

import contextvars
import re
import secrets
from typing import NamedTuple, Optional

# consumer.py sets it around each handler call: the traceparent the handler sends on the agent call's request
_AGENT_CALL = contextvars.ContextVar("baton_agent_call_traceparent", default=None)


def agent_call_traceparent():
    """Inside a handler called by consumer.py: the ``traceparent`` to send on the agent call's HTTP request (a child
    of Baton's span for the snapshot, or of a new trace); None outside a handler."""
    return _AGENT_CALL.get()


def handling(headers):
    """consumer.py's hook: sets :func:`agent_call_traceparent` for the handler of a record with ``headers``; returns
    the token to reset it with (``_AGENT_CALL.reset(token)``)."""
    return _AGENT_CALL.set(child_traceparent(parse_traceparent(header(headers, "traceparent"))))


def done(token):
    """Ends :func:`handling`."""
    _AGENT_CALL.reset(token)

_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$")


class TraceParent(NamedTuple):
    """A valid W3C ``traceparent``: trace id (32 hex), parent id (16 hex), flags (2 hex), all lowercase."""

    trace_id: str
    span_id: str
    flags: str

    def __str__(self):
        return "00-%s-%s-%s" % (self.trace_id, self.span_id, self.flags)


def header(headers, key):
    """The last value of ``key`` among Kafka record headers (a list of (key, bytes) pairs, or None), as text."""
    value = None
    for k, v in headers or []:
        if k == key:
            value = v
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return value


def parse_traceparent(value) -> Optional[TraceParent]:
    """The header's trace context, or None when it is absent or invalid.

    W3C Trace Context: version ``00`` has exactly four fields; a later version may append fields after a dash, which
    are ignored; version ``ff``, upper-case hex and all-zero trace or parent ids are invalid.
    """
    if value is None:
        return None
    m = _TRACEPARENT.match(value.strip(" \t"))
    if not m:
        return None
    version, trace_id, span_id, flags, rest = m.groups()
    if version == "ff" or (version == "00" and rest is not None):
        return None
    if trace_id == "0" * 32 or span_id == "0" * 16:
        return None
    return TraceParent(trace_id, span_id, flags)


def child_traceparent(parent: Optional[TraceParent]) -> str:
    """The ``traceparent`` of the agent call: the parent's trace and sampled flag with a new span id; a new trace
    (sampled) without a parent."""
    span_id = _random_hex(8)
    if parent is None:
        return str(TraceParent(_random_hex(16), span_id, "01"))
    # version 00 defines only the sampled bit (0x01); the others are not passed on
    return str(TraceParent(parent.trace_id, span_id, "%02x" % (int(parent.flags, 16) & 0x01)))


def _random_hex(n_bytes):
    while True:
        value = secrets.token_hex(n_bytes)
        if value != "0" * (2 * n_bytes):
            return value
