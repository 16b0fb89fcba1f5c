"""The kit's settings (the same names as ../node/settings.js; ../README.md lists them), read from the environment
and, when CONFIG_FILE names one, from a file of NAME=value lines (blank lines and lines starting with # ignored).
The environment wins over the file. Any setting NAME can also be given as NAME_FILE: the path of a file holding
the value (a trailing line break is dropped), which is how Kubernetes mounts a Secret's keys.

From them: the librdkafka configuration (kafka_config) and the schema registry's address and credentials
(registry_access)."""
import base64
import os
import urllib.parse

import dialects

DEFAULTS = {
    "BOOTSTRAP_SERVERS": "localhost:9092",
    "SCHEMA_REGISTRY_URL": "http://localhost:8081",
    "TOPIC": "baton.context-snapshots",
    "GROUP_ID": "baton-consumer-example",
    "MODEL": "local-model",
    "FORMAT": "auto",
    "MAX_SNAPSHOTS": "0",
    "IDLE_EXIT_MS": "0",
    "DEDUPE_CAPACITY": "10000",
    "DEAD_LETTER_FILE": "",
    "SECURITY_PROTOCOL": "PLAINTEXT",
    "SASL_MECHANISM": "",
    "SASL_USERNAME": "",
    "SASL_PASSWORD": "",
    "SSL_CA_LOCATION": "",
    "SSL_CERTIFICATE_LOCATION": "",
    "SSL_KEY_LOCATION": "",
    "SCHEMA_REGISTRY_USERNAME": "",
    "SCHEMA_REGISTRY_PASSWORD": "",
    "SCHEMA_REGISTRY_CA_LOCATION": "",
    "RECEIPTS_TOPIC": "",
    "RECEIVER_BUDGET_TOKENS": "",
    "DIALECT": "openai-chat",
}
PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
FORMATS = ("auto", "avro", "json")


class SettingsError(ValueError):
    """A setting that cannot be used; the message names it."""


def _read_value_file(name, path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().rstrip("\r\n")
    except OSError as e:
        raise SettingsError(f"{name}_FILE: cannot read {path}: {e.strerror}") from None


def _config_file(path):
    values = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise SettingsError(f"CONFIG_FILE: cannot read {path}: {e.strerror}") from None
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        name = name.strip()
        if not sep or _setting_name(name) is None:
            raise SettingsError(f"CONFIG_FILE {path} line {number}: expected NAME=value with a known NAME, got {name!r}")
        values[name] = value.strip()
    return values


def _setting_name(name):
    """The setting a NAME or NAME_FILE stands for, or None."""
    if name in DEFAULTS:
        return name
    if name.endswith("_FILE") and name[:-5] in DEFAULTS:
        return name[:-5]
    return None


def _resolve(raw):
    out = {}
    for name, value in raw.items():
        setting = _setting_name(name)
        if setting is None or value == "":
            continue
        if setting != name:
            value = _read_value_file(setting, value)
        out[setting] = value
    return out


def load(environ=None):
    """All settings as a dict (every name of DEFAULTS present), checked."""
    environ = os.environ if environ is None else environ
    values = dict(DEFAULTS)
    if environ.get("CONFIG_FILE"):
        values.update(_resolve(_config_file(environ["CONFIG_FILE"])))
    values.update(_resolve({k: v for k, v in environ.items() if _setting_name(k) is not None}))
    for name in ("MAX_SNAPSHOTS", "IDLE_EXIT_MS", "DEDUPE_CAPACITY"):
        if not values[name].isdigit():
            raise SettingsError(f"{name} must be a whole number >= 0, got {values[name]!r}")
    if values["RECEIVER_BUDGET_TOKENS"] and not values["RECEIVER_BUDGET_TOKENS"].isdigit():
        raise SettingsError(f"RECEIVER_BUDGET_TOKENS must be a whole number >= 0, got {values['RECEIVER_BUDGET_TOKENS']!r}")
    values["SECURITY_PROTOCOL"] = values["SECURITY_PROTOCOL"].upper()
    if values["SECURITY_PROTOCOL"] not in PROTOCOLS:
        raise SettingsError(f"SECURITY_PROTOCOL must be one of {', '.join(PROTOCOLS)}, got {values['SECURITY_PROTOCOL']!r}")
    if values["FORMAT"] not in FORMATS:
        raise SettingsError(f"FORMAT must be one of {', '.join(FORMATS)}, got {values['FORMAT']!r}")
    if values["DIALECT"] not in dialects.DIALECTS:
        raise SettingsError(f"DIALECT must be one of {', '.join(dialects.DIALECTS)}, got {values['DIALECT']!r}")
    if values["RECEIPTS_TOPIC"] and values["FORMAT"] != "json":
        # the kit writes receipts in the JSON form only, which Baton reads when it runs with baton.format=json
        raise SettingsError("RECEIPTS_TOPIC needs FORMAT=json: the kit sends receipts in the JSON form (baton.format=json); "
                            "with Avro, send receipts.acknowledge(...) with an Avro serializer")
    for name in ("SSL_CA_LOCATION", "SSL_CERTIFICATE_LOCATION", "SSL_KEY_LOCATION", "SCHEMA_REGISTRY_CA_LOCATION"):
        if values[name] and not os.access(values[name], os.R_OK):
            raise SettingsError(f"{name}: cannot read {values[name]}")
    if values["SECURITY_PROTOCOL"].startswith("SASL_"):
        values["SASL_MECHANISM"] = (values["SASL_MECHANISM"] or "SCRAM-SHA-512").upper()
        if values["SASL_MECHANISM"] not in MECHANISMS:
            raise SettingsError(f"SASL_MECHANISM must be one of {', '.join(MECHANISMS)}, got {values['SASL_MECHANISM']!r}")
        if not values["SASL_USERNAME"] or not values["SASL_PASSWORD"]:
            raise SettingsError(f"SECURITY_PROTOCOL={values['SECURITY_PROTOCOL']} needs SASL_USERNAME and SASL_PASSWORD "
                                "(or SASL_PASSWORD_FILE)")
    return values


def kafka_config(s):
    """The librdkafka (confluent_kafka) consumer configuration: read_committed, offsets committed by the kit."""
    config = {
        "bootstrap.servers": s["BOOTSTRAP_SERVERS"],
        "group.id": s["GROUP_ID"],
        "auto.offset.reset": "earliest",
        "isolation.level": "read_committed",
        # the kit commits a record's offset itself, after handling it (consumer.py): never at poll time
        "enable.auto.commit": False,
        "security.protocol": s["SECURITY_PROTOCOL"],
    }
    if s["SECURITY_PROTOCOL"].startswith("SASL_"):
        config.update({"sasl.mechanisms": s["SASL_MECHANISM"], "sasl.username": s["SASL_USERNAME"],
                       "sasl.password": s["SASL_PASSWORD"]})
    if s["SECURITY_PROTOCOL"] in ("SSL", "SASL_SSL"):
        # librdkafka before 2.0 does not check the broker's host name unless told to
        config["ssl.endpoint.identification.algorithm"] = "https"
        for name, key in (("SSL_CA_LOCATION", "ssl.ca.location"), ("SSL_CERTIFICATE_LOCATION", "ssl.certificate.location"),
                          ("SSL_KEY_LOCATION", "ssl.key.location")):
            if s[name]:
                config[key] = s[name]
    return config


def producer_config(s):
    """The librdkafka producer configuration for the receipts: the consumer's connection settings, idempotent, and
    Java's partitioner (murmur2), so that a session's receipts reach the partition of its events."""
    consumer_only = ("group.id", "auto.offset.reset", "isolation.level", "enable.auto.commit")
    config = {k: v for k, v in kafka_config(s).items() if k not in consumer_only}
    # librdkafka's default (consistent_random, CRC32) is not the Java producers' partitioner
    config.update({"partitioner": "murmur2_random", "enable.idempotence": True, "acks": "all"})
    return config


def registry_access(s):
    """(base URL without user-info, Authorization header value or None, CA file or None). Credentials come from
    SCHEMA_REGISTRY_USERNAME/PASSWORD, else from the URL's user-info (percent-decoded)."""
    parts = urllib.parse.urlsplit(s["SCHEMA_REGISTRY_URL"])
    user, password = s["SCHEMA_REGISTRY_USERNAME"], s["SCHEMA_REGISTRY_PASSWORD"]
    if not user and parts.username is not None:
        user, password = urllib.parse.unquote(parts.username), urllib.parse.unquote(parts.password or "")
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    url = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")).rstrip("/")
    auth = "Basic " + base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii") if user else None
    return url, auth, s["SCHEMA_REGISTRY_CA_LOCATION"] or None
