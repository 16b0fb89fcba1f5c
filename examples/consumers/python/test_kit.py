"""The kit's logic without a broker (python3 -m unittest discover -s examples/consumers/python): the mapping of both
snapshot forms, dedupe, the dead-letter file and the settings. Needs neither confluent_kafka nor avro. Run by the
Java test dev.baton.consumer.ConsumerKitsLogicTest; ConsumerKitsIT runs the kit against a broker."""
import base64
import datetime
import json
import os
import pathlib
import tempfile
import unittest

import prompts
import receipts
import settings
from delivery import DeadLetterFile, RecentIds

TESTDATA = pathlib.Path(__file__).resolve().parent.parent / "testdata"


class MappingTest(unittest.TestCase):

    LEDGER_TEXT = ("[call ledger: 15 calls in 2 entries, newest first; 1 older entry (1 calls) dropped]\n"
                   "run_tests x12: newest seq 41 by coder, ERROR; 2 OK, 10 ERROR; args sha256 0d4bf368cf0c; narrated\n"
                   "apply_patch x2: newest seq 17 by qwen, UNANSWERED; 1 OK, 1 UNANSWERED; args sha256 8f1fb7d30b09; "
                   "not_shown")

    def test_should_add_the_call_ledger_as_one_system_message_only_when_asked(self):
        ledger = json.loads((TESTDATA / "ledger.json").read_text(encoding="utf-8"))
        self.assertEqual(prompts.ledger_text(ledger), self.LEDGER_TEXT)  # the Java kit's text too
        snapshot = json.loads((TESTDATA / "json-form.jsonl").read_text(encoding="utf-8").splitlines()[0])
        without = prompts.chat_request(snapshot, "m")
        self.assertEqual(prompts.chat_request(snapshot, "m", with_ledger=True), without, "no ledger: no message")
        snapshot["call_ledger"] = ledger
        self.assertEqual(prompts.chat_request(snapshot, "m"), without, "off by default")
        with_ledger = prompts.chat_request(snapshot, "m", with_ledger=True)
        self.assertEqual(len(with_ledger["messages"]), len(without["messages"]) + 1)
        self.assertEqual(with_ledger["messages"][1], {"role": "system", "content": self.LEDGER_TEXT})
        self.assertEqual(with_ledger["messages"][2:], without["messages"][1:])

    def test_should_map_the_json_form_with_the_arguments_text_as_written(self):
        lines = (TESTDATA / "json-form.jsonl").read_text(encoding="utf-8").splitlines()
        expected = (TESTDATA / "prompts.jsonl").read_text(encoding="utf-8").splitlines()
        self.assertEqual([prompts.to_line(prompts.for_target(prompts.read_snapshot_json(l), "qwen3")) for l in lines],
                         expected)

    def test_should_give_arguments_as_a_string_equal_to_the_avro_form(self):
        line = (TESTDATA / "json-form.jsonl").read_text(encoding="utf-8").splitlines()[0]
        json_form = prompts.read_snapshot_json(line)
        avro_form = json.loads(line)  # the Avro form holds the arguments' text
        raw = ('{"repeat":1e3,"ratio":1.10,"big":123456789012345678901234567890,"name":"caf\\u00e9 \\"q\\" é",'
               '"nested":{"arguments":{"a":[1,{"b":"}"}]}}}')
        avro_form["messages"][1]["tool_calls"][0]["arguments"] = raw
        avro_form["messages"][1]["tool_calls"][1]["arguments"] = "{}"
        calls = prompts.chat_request(json_form, "m")["messages"][2]["tool_calls"]
        self.assertEqual([c["function"]["arguments"] for c in calls], [raw, "{}"])
        self.assertEqual(prompts.for_target(json_form, "m"), prompts.for_target(avro_form, "m"))

    def test_should_serialize_an_arguments_object_of_a_plain_parse_compactly(self):
        snapshot = json.loads((TESTDATA / "json-form.jsonl").read_text(encoding="utf-8").splitlines()[0])
        args = prompts.chat_request(snapshot, "m")["messages"][2]["tool_calls"][1]["function"]["arguments"]
        self.assertEqual(args, "{}")
        self.assertIsInstance(prompts.chat_request(snapshot, "m")["messages"][2]["tool_calls"][0]["function"]["arguments"],
                              str)


class DedupeTest(unittest.TestCase):

    def test_should_see_a_remembered_id_once_handled(self):
        ids = RecentIds(10)
        self.assertFalse(ids.seen("a/s/h1"))
        ids.remember("a/s/h1")
        self.assertTrue(ids.seen("a/s/h1"))

    def test_should_forget_the_least_recently_seen_id_beyond_capacity(self):
        ids = RecentIds(2)
        ids.remember("h1")
        ids.remember("h2")
        self.assertTrue(ids.seen("h1"))  # h1 is now the most recent
        ids.remember("h3")
        self.assertEqual(len(ids), 2)
        self.assertFalse(ids.seen("h2"))
        self.assertTrue(ids.seen("h1"))
        self.assertTrue(ids.seen("h3"))

    def test_should_remember_nothing_with_capacity_zero(self):
        ids = RecentIds(0)
        ids.remember("h1")
        self.assertFalse(ids.seen("h1"))


class DeadLetterFileTest(unittest.TestCase):

    def test_should_append_the_record_and_its_error_as_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dead.jsonl")
            DeadLetterFile(path).write("t", 0, 7, 1700000000000, b"acme/s1", b"\x00\x01", "ValueError: bad")
            DeadLetterFile(path).write("t", 1, 8, None, None, None, "ValueError: no value")
            first, second = [json.loads(l) for l in pathlib.Path(path).read_text().splitlines()]
        self.assertEqual(first, {"topic": "t", "partition": 0, "offset": 7, "timestamp": 1700000000000,
                                 "key_base64": base64.b64encode(b"acme/s1").decode(), "value_base64": "AAE=",
                                 "error": "ValueError: bad"})
        self.assertIsNone(second["value_base64"])


class SettingsTest(unittest.TestCase):

    def test_should_configure_sasl_ssl_with_scram_and_the_cluster_ca(self):
        with tempfile.TemporaryDirectory() as d:
            secret, ca = pathlib.Path(d, "password"), pathlib.Path(d, "ca.crt")
            secret.write_text("s3cret\n")
            ca.write_text("-----BEGIN CERTIFICATE-----\n")
            s = settings.load({"BOOTSTRAP_SERVERS": "kafka:9093", "SECURITY_PROTOCOL": "sasl_ssl",
                               "SASL_USERNAME": "consumer", "SASL_PASSWORD_FILE": str(secret),
                               "SSL_CA_LOCATION": str(ca)})
        config = settings.kafka_config(s)
        self.assertEqual(config["security.protocol"], "SASL_SSL")
        self.assertEqual(config["sasl.mechanisms"], "SCRAM-SHA-512")
        self.assertEqual((config["sasl.username"], config["sasl.password"]), ("consumer", "s3cret"))
        self.assertEqual(config["ssl.ca.location"], str(ca))
        self.assertEqual(config["ssl.endpoint.identification.algorithm"], "https")
        self.assertIs(config["enable.auto.commit"], False)
        self.assertEqual(config["isolation.level"], "read_committed")

    def test_should_leave_receipts_off_unless_a_receipts_topic_is_set(self):
        self.assertEqual(settings.load({})["RECEIPTS_TOPIC"], "")
        s = settings.load({"RECEIPTS_TOPIC": "baton.handoff-receipts", "FORMAT": "json", "RECEIVER_BUDGET_TOKENS": "9"})
        self.assertEqual((s["RECEIPTS_TOPIC"], s["RECEIVER_BUDGET_TOKENS"]), ("baton.handoff-receipts", "9"))
        config = settings.producer_config(s)
        self.assertEqual(config["partitioner"], "murmur2_random", "Java's partitioner: the partition of the session")
        self.assertNotIn("group.id", config)
        for bad in ({"RECEIPTS_TOPIC": "r"}, {"RECEIPTS_TOPIC": "r", "FORMAT": "avro"},
                    {"RECEIPTS_TOPIC": "r", "FORMAT": "json", "RECEIVER_BUDGET_TOKENS": "-1"}):
            with self.assertRaises(settings.SettingsError):
                settings.load(bad)

    def test_should_read_a_config_file_and_let_the_environment_win(self):
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d, "kit.conf")
            path.write_text("# the cluster\nBOOTSTRAP_SERVERS = file:9093\nTOPIC=from-file\n\nGROUP_ID=g\n")
            s = settings.load({"CONFIG_FILE": str(path), "TOPIC": "from-env"})
        self.assertEqual((s["BOOTSTRAP_SERVERS"], s["TOPIC"], s["GROUP_ID"]), ("file:9093", "from-env", "g"))

    def test_should_refuse_an_unknown_name_in_the_config_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d, "kit.conf")
            path.write_text("BOOTSTRAP_SERVER=kafka:9093\n")
            with self.assertRaisesRegex(settings.SettingsError, "line 1.*BOOTSTRAP_SERVER"):
                settings.load({"CONFIG_FILE": str(path)})

    def test_should_refuse_a_ca_file_that_cannot_be_read(self):
        with self.assertRaisesRegex(settings.SettingsError, "SSL_CA_LOCATION: cannot read /nonexistent/ca.crt"):
            settings.load({"SECURITY_PROTOCOL": "SSL", "SSL_CA_LOCATION": "/nonexistent/ca.crt"})

    def test_should_refuse_sasl_without_credentials(self):
        with self.assertRaisesRegex(settings.SettingsError, "SASL_USERNAME"):
            settings.load({"SECURITY_PROTOCOL": "SASL_SSL"})

    def test_should_take_registry_credentials_from_the_url_or_from_settings(self):
        with tempfile.NamedTemporaryFile(suffix=".pem") as pem:
            s = settings.load({"SCHEMA_REGISTRY_URL": "https://kit%40acme:p%3Aw@registry:8081/apis/ccompat/v7/",
                               "SCHEMA_REGISTRY_CA_LOCATION": pem.name})
            url, auth, ca = settings.registry_access(s)
            self.assertEqual(ca, pem.name)
        self.assertEqual(url, "https://registry:8081/apis/ccompat/v7")
        self.assertEqual(base64.b64decode(auth.removeprefix("Basic ")).decode(), "kit@acme:p:w")
        s = settings.load({"SCHEMA_REGISTRY_URL": "http://registry:8081",
                           "SCHEMA_REGISTRY_USERNAME": "u", "SCHEMA_REGISTRY_PASSWORD": "p"})
        self.assertEqual(settings.registry_access(s), ("http://registry:8081", "Basic dTpw", None))
        self.assertIsNone(settings.registry_access(settings.load({}))[1])


class ReceiptsTest(unittest.TestCase):

    @staticmethod
    def instant(text):
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))

    def test_should_send_the_receipts_the_java_and_node_kits_send_for_the_same_input(self):
        cases = json.loads((TESTDATA / "receipts.json").read_text(encoding="utf-8"))
        self.assertTrue(cases)
        for c in cases:
            started = receipts.acknowledge(c["snapshot"], c["receiver_model"], c["budget_tokens"],
                                           self.instant(c["started_at"]), c.get("dialect"))
            ended = receipts.report_outcome(started, c["outcome"], c["tokens_spent"])
            self.assertEqual(receipts.key(c["snapshot"]), c["key"])
            self.assertEqual(receipts.to_json(started), c["started"])
            self.assertEqual(receipts.to_json(ended), c["ended"])
            self.assertIsNone(started["outcome"], "the start receipt is left as it was")

    def test_should_write_the_instant_as_java_does_in_utc(self):
        plus_two = datetime.timezone(datetime.timedelta(hours=2))
        self.assertEqual(receipts.instant_text(datetime.datetime(2026, 12, 3, 12, 0, 0, 123456, plus_two)),
                         "2026-12-03T10:00:00.123456Z")
        self.assertEqual(receipts.instant_text(datetime.datetime(2026, 12, 3, 10, 0, 0, 5000, datetime.timezone.utc)),
                         "2026-12-03T10:00:00.005Z")

    def test_should_refuse_what_the_schema_cannot_hold(self):
        snapshot = json.loads((TESTDATA / "receipts.json").read_text(encoding="utf-8"))[0]["snapshot"]
        with self.assertRaises(ValueError):
            receipts.acknowledge(snapshot, None, None, datetime.datetime(2026, 12, 3))  # naive: no instant
        with self.assertRaises(ValueError):
            receipts.acknowledge({**snapshot, "content_sha256": None}, None, None, self.instant("2026-12-03T10:00:00Z"))
        started = receipts.acknowledge(snapshot, None, None, self.instant("2026-12-03T10:00:00Z"))
        for outcome, tokens in (("DONE", 1), ("FAILED", -1), ("FAILED", 1.5), ("FAILED", True)):
            with self.assertRaises(ValueError):
                receipts.report_outcome(started, outcome, tokens)


if __name__ == "__main__":
    unittest.main()
