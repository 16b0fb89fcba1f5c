#!/usr/bin/python3
"""Reads baton.context-snapshots (read_committed) and hands each snapshot to a handler; the kit's handler prints
one JSON line per snapshot: for LOCAL targets the request in the dialect DIALECT (dialects.py; the default
openai-chat is a chat-completions request, see prompts.py), the CLI prompt for CLAUDE_CLI targets. Settings: settings.py and ../README.md (environment variables, or a CONFIG_FILE).

Delivery (../README.md, "Commits, failures and duplicates"):
- a record's offset is committed only after its handler returned (at least once: a crash before the commit
  delivers the record again);
- a record that cannot be decoded or handled stops the kit with a one-line error and exit status 1, its offset
  not committed, so a restart reads it again; with DEAD_LETTER_FILE set, it is written there instead and the kit
  goes on;
- a snapshot_id handled recently is skipped (and committed): see delivery.RecentIds;
- with RECEIPTS_TOPIC set, a hand-off receipt is sent for each snapshot handled (ReceiptSender below, receipts.py): the
  acknowledgement once the handler returned, and the outcome too when the handler returns one.

Values are Avro in the Confluent wire format or, on topics of baton.format=json, JSON (FORMAT=auto tells them
apart by the first byte). Debian packages only: python3-confluent-kafka (the Kafka client) and python3-avro (the
decoder). Confluent's Python Avro deserializer needs fastavro, which Debian does not package, so the wire format is
read here: magic byte 0, the schema id (4 bytes, big-endian), the Avro binary body; the writer's schema comes from
the registry's Confluent API (GET /schemas/ids/{id}), cached.
"""
import datetime
import io
import json
import signal
import ssl
import struct
import sys
import time
import urllib.error
import urllib.request

import avro.io
import avro.schema
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, libversion

import receipts

import settings
from delivery import DeadLetterFile, RecentIds
from dialects import for_target, to_line
from prompts import read_snapshot_json


class Registry:
    """The writer schemas by id, fetched from the registry's Confluent API with the configured credentials."""

    def __init__(self, url, authorization, ca_file):
        self._url, self._authorization = url, authorization
        self._context = ssl.create_default_context(cafile=ca_file) if ca_file else None
        self._schemas = {}

    def schema(self, schema_id):
        if schema_id not in self._schemas:
            request = urllib.request.Request(f"{self._url}/schemas/ids/{schema_id}")
            if self._authorization:
                request.add_header("Authorization", self._authorization)
            try:
                with urllib.request.urlopen(request, timeout=30, context=self._context) as response:
                    self._schemas[schema_id] = avro.schema.parse(json.load(response)["schema"])
            except urllib.error.HTTPError as e:
                raise ValueError(f"the schema registry answered {e.code} for schema id {schema_id}") from None
        return self._schemas[schema_id]


class Decoder:
    """A record value as a snapshot dict: Avro in the Confluent wire format, or the JSON form."""

    def __init__(self, registry, fmt):
        self._registry, self._format = registry, fmt

    def decode(self, value):
        if value is None:
            raise ValueError("the record has no value")
        if self._format == "avro" or (self._format == "auto" and value[:1] == b"\x00"):
            if len(value) < 5 or value[0] != 0:
                raise ValueError("not the Confluent wire format (magic byte 0 + 4-byte schema id)")
            (schema_id,) = struct.unpack(">I", value[1:5])
            reader = avro.io.DatumReader(self._registry.schema(schema_id))
            return reader.read(avro.io.BinaryDecoder(io.BytesIO(value[5:])))
        return read_snapshot_json(value.decode("utf-8"))


class ReceiptSender:
    """Sends a handled snapshot's hand-off receipts to RECEIPTS_TOPIC in the JSON form, keyed by its session, and
    waits for the broker's acknowledgement (before the kit commits the snapshot's offset: a receipt is never lost,
    and one sent twice after a redelivery Baton ignores and counts as a duplicate)."""

    def __init__(self, s):
        self._topic, self._model = s["RECEIPTS_TOPIC"], s["MODEL"]
        self._budget = int(s["RECEIVER_BUDGET_TOKENS"]) if s["RECEIVER_BUDGET_TOKENS"] else None
        self._producer = Producer(settings.producer_config(s))

    def send(self, snapshot, started_at, result):
        """`result`: what the handler returned; a dict with `outcome` and `tokens_spent` when the work has ended."""
        started = receipts.acknowledge(snapshot, self._model, self._budget, started_at)
        sent = [started]
        if isinstance(result, dict) and result.get("outcome") is not None:
            sent.append(receipts.report_outcome(started, result["outcome"], result.get("tokens_spent", 0)))
        errors = []
        for receipt in sent:
            self._producer.produce(self._topic, key=receipts.key(snapshot).encode("utf-8"),
                                   value=receipts.to_json(receipt).encode("utf-8"),
                                   on_delivery=lambda err, _msg: err and errors.append(err))
        if self._producer.flush(30) > 0 or errors:
            raise RuntimeError(f"could not send the receipt to {self._topic}: {errors[0] if errors else 'timed out'}")

    def close(self):
        self._producer.flush(30)


def print_line(line):
    """The kit's handler: one JSON line on standard output. Replace it with the delivery to the receiving agent;
    raise to refuse a snapshot (retry transient failures inside the handler: a raise stops the kit or dead-letters).
    A handler that waits for the receiving agent's work may return {"outcome": "RESOLVED"|"FAILED"|"HANDED_BACK"|
    "ABANDONED", "tokens_spent": N}: with RECEIPTS_TOPIC set, that outcome is reported to Baton too."""
    sys.stdout.write(to_line(line) + "\n")
    sys.stdout.flush()


def log(text):
    print(f"baton consumer: {text}", file=sys.stderr, flush=True)


# librdkafka before 2.6.1 repeats the client nonce in SCRAM's client-final message; Kafka 4 brokers check it strictly
SCRAM_FIXED_IN = 0x020601FF


def warn_about_scram(s):
    version, number = libversion()
    if s["SASL_MECHANISM"].startswith("SCRAM-") and number < SCRAM_FIXED_IN:
        log(f"warning: librdkafka {version} cannot log in with {s['SASL_MECHANISM']} to Kafka 4 brokers (fixed in "
            "2.6.1): use a newer librdkafka, or SASL_MECHANISM=PLAIN over TLS (see ../README.md)")


def run(s, handle=print_line, dedupe=None):
    """Consumes until MAX_SNAPSHOTS were handled, IDLE_EXIT_MS passed without one, SIGTERM/SIGINT, or a record
    could not be handled (without DEAD_LETTER_FILE). Returns the exit status: 0, or 1 for a record it stopped at."""
    decoder = Decoder(Registry(*settings.registry_access(s)), s["FORMAT"])
    dedupe = RecentIds(int(s["DEDUPE_CAPACITY"])) if dedupe is None else dedupe
    dead_letters = DeadLetterFile(s["DEAD_LETTER_FILE"]) if s["DEAD_LETTER_FILE"] else None
    receipt_sender = ReceiptSender(s) if s["RECEIPTS_TOPIC"] else None
    max_snapshots, idle_exit = int(s["MAX_SNAPSHOTS"]), int(s["IDLE_EXIT_MS"]) / 1000.0
    stop, failures = [], []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(True))

    def on_error(error):
        # librdkafka retries every client error forever; a refused login will not heal: stop on it
        if error.fatal() or error.code() == KafkaError._AUTHENTICATION:
            failures.append(error)
        else:
            log(str(error))

    warn_about_scram(s)
    consumer = Consumer({**settings.kafka_config(s), "error_cb": on_error})
    consumer.subscribe([s["TOPIC"]])
    handled, last = 0, time.monotonic()
    try:
        while not stop and not (max_snapshots and handled >= max_snapshots):
            if idle_exit and time.monotonic() - last > idle_exit:
                break
            message = consumer.poll(0.2)
            if failures:
                log(f"stopped: {failures[0].str()}")
                return 1
            if message is None:
                continue
            if message.error():
                if message.error().fatal():
                    raise KafkaException(message.error())
                log(str(message.error()))  # librdkafka retries these itself
                continue
            where = f"{message.topic()}[{message.partition()}]@{message.offset()}"
            try:
                snapshot = decoder.decode(message.value())
                snapshot_id = snapshot["snapshot_id"]
                if dedupe.seen(snapshot_id):
                    log(f"skipped {snapshot_id} at {where}: already handled (a redelivery)")
                else:
                    started_at = datetime.datetime.now(datetime.timezone.utc)
                    result = handle(for_target(snapshot, s["MODEL"], s["DIALECT"]))
                    if receipt_sender is not None:
                        receipt_sender.send(snapshot, started_at, result)
                    dedupe.remember(snapshot_id)
                    handled, last = handled + 1, time.monotonic()
            except Exception as e:  # noqa: BLE001 - every failure is either a stop or a dead letter, never a skip
                error = f"{type(e).__name__}: {e}"
                if dead_letters is None:
                    log(f"stopped at {where}: {error}. Its offset is not committed: a restart reads it again "
                        "(set DEAD_LETTER_FILE to set such records aside and go on).")
                    return 1
                dead_letters.write(message.topic(), message.partition(), message.offset(), message.timestamp()[1],
                                   message.key(), message.value(), error)
                log(f"dead-lettered {where} to {s['DEAD_LETTER_FILE']}: {error}")
            try:
                consumer.commit(message=message, asynchronous=False)
            except KafkaException as e:
                # e.g. the partition moved to another member: it reads the record again (and may hand it off again)
                log(f"could not commit {where}: {e}")
        return 0
    finally:
        consumer.close()  # auto commit is off: close commits nothing the loop did not commit
        if receipt_sender is not None:
            receipt_sender.close()


def main():
    try:
        s = settings.load()
    except settings.SettingsError as e:
        log(str(e))
        return 2
    try:
        return run(s)
    except KafkaException as e:
        log(f"stopped: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
