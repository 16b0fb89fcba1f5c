// The kit's settings (the same names as ../python/settings.py; ../README.md lists them), read from the
// environment and, when CONFIG_FILE names one, from a file of NAME=value lines (blank lines and lines starting
// with # ignored). The environment wins over the file. Any setting NAME can also be given as NAME_FILE: the path
// of a file holding the value (a trailing line break is dropped), which is how Kubernetes mounts a Secret's keys.
//
// From them: the kafkajs client configuration (kafkaConfig) and the schema registry client's (registryConfig).
'use strict';

const fs = require('fs');
const https = require('https');

const DEFAULTS = Object.freeze({
  BOOTSTRAP_SERVERS: 'localhost:9092',
  SCHEMA_REGISTRY_URL: 'http://localhost:8081',
  TOPIC: 'baton.context-snapshots',
  GROUP_ID: 'baton-consumer-example',
  MODEL: 'local-model',
  DIALECT: 'openai-chat',
  FORMAT: 'auto',
  MAX_SNAPSHOTS: '0',
  IDLE_EXIT_MS: '0',
  DEDUPE_CAPACITY: '10000',
  DEAD_LETTER_FILE: '',
  SECURITY_PROTOCOL: 'PLAINTEXT',
  SASL_MECHANISM: '',
  SASL_USERNAME: '',
  SASL_PASSWORD: '',
  SSL_CA_LOCATION: '',
  SSL_CERTIFICATE_LOCATION: '',
  SSL_KEY_LOCATION: '',
  SCHEMA_REGISTRY_USERNAME: '',
  SCHEMA_REGISTRY_PASSWORD: '',
  SCHEMA_REGISTRY_CA_LOCATION: '',
  RECEIPTS_TOPIC: '',
  RECEIVER_BUDGET_TOKENS: '',
});
const PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
const MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];
const FORMATS = ['auto', 'avro', 'json'];
const { DIALECTS } = require('./dialects');

// A setting that cannot be used; the message names it.
class SettingsError extends Error {}

// The setting a NAME or NAME_FILE stands for, or null.
function settingName(name) {
  if (Object.prototype.hasOwnProperty.call(DEFAULTS, name)) return name;
  if (name.endsWith('_FILE') && Object.prototype.hasOwnProperty.call(DEFAULTS, name.slice(0, -5))) return name.slice(0, -5);
  return null;
}

function readFile(what, path) {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch (e) {
    throw new SettingsError(`${what}: cannot read ${path}: ${e.code || e.message}`);
  }
}

function configFile(path) {
  const values = {};
  readFile('CONFIG_FILE', path).split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    const name = (eq < 0 ? line : line.slice(0, eq)).trim();
    if (eq < 0 || settingName(name) === null) {
      throw new SettingsError(`CONFIG_FILE ${path} line ${index + 1}: expected NAME=value with a known NAME, got '${name}'`);
    }
    values[name] = line.slice(eq + 1).trim();
  });
  return values;
}

function resolve(raw) {
  const out = {};
  for (const [name, value] of Object.entries(raw)) {
    const setting = settingName(name);
    if (setting === null || value === undefined || value === '') continue;
    out[setting] = setting === name ? value : readFile(`${setting}_FILE`, value).replace(/\r?\n$/, '');
  }
  return out;
}

// All settings (every name of DEFAULTS present), checked.
function load(environ = process.env) {
  const s = { ...DEFAULTS };
  if (environ.CONFIG_FILE) Object.assign(s, resolve(configFile(environ.CONFIG_FILE)));
  Object.assign(s, resolve(Object.fromEntries(Object.entries(environ).filter(([k]) => settingName(k) !== null))));
  for (const name of ['MAX_SNAPSHOTS', 'IDLE_EXIT_MS', 'DEDUPE_CAPACITY']) {
    if (!/^[0-9]+$/.test(s[name])) throw new SettingsError(`${name} must be a whole number >= 0, got '${s[name]}'`);
  }
  if (s.RECEIVER_BUDGET_TOKENS && !/^[0-9]+$/.test(s.RECEIVER_BUDGET_TOKENS)) {
    throw new SettingsError(`RECEIVER_BUDGET_TOKENS must be a whole number >= 0, got '${s.RECEIVER_BUDGET_TOKENS}'`);
  }
  s.SECURITY_PROTOCOL = s.SECURITY_PROTOCOL.toUpperCase();
  if (!PROTOCOLS.includes(s.SECURITY_PROTOCOL)) {
    throw new SettingsError(`SECURITY_PROTOCOL must be one of ${PROTOCOLS.join(', ')}, got '${s.SECURITY_PROTOCOL}'`);
  }
  if (!DIALECTS.includes(s.DIALECT)) throw new SettingsError(`DIALECT must be one of ${DIALECTS.join(', ')}, got '${s.DIALECT}'`);
  if (!FORMATS.includes(s.FORMAT)) throw new SettingsError(`FORMAT must be one of ${FORMATS.join(', ')}, got '${s.FORMAT}'`);
  if (s.RECEIPTS_TOPIC && s.FORMAT !== 'json') {
    // the kit writes receipts in the JSON form only, which Baton reads when it runs with baton.format=json
    throw new SettingsError('RECEIPTS_TOPIC needs FORMAT=json: the kit sends receipts in the JSON form (baton.format=json); '
      + 'with Avro, send receipts.acknowledge(...) with an Avro serializer');
  }
  for (const name of ['SSL_CA_LOCATION', 'SSL_CERTIFICATE_LOCATION', 'SSL_KEY_LOCATION', 'SCHEMA_REGISTRY_CA_LOCATION']) {
    if (s[name]) readFile(name, s[name]);
  }
  if (s.SECURITY_PROTOCOL.startsWith('SASL_')) {
    s.SASL_MECHANISM = (s.SASL_MECHANISM || 'SCRAM-SHA-512').toUpperCase();
    if (!MECHANISMS.includes(s.SASL_MECHANISM)) {
      throw new SettingsError(`SASL_MECHANISM must be one of ${MECHANISMS.join(', ')}, got '${s.SASL_MECHANISM}'`);
    }
    if (!s.SASL_USERNAME || !s.SASL_PASSWORD) {
      throw new SettingsError(`SECURITY_PROTOCOL=${s.SECURITY_PROTOCOL} needs SASL_USERNAME and SASL_PASSWORD (or SASL_PASSWORD_FILE)`);
    }
  }
  return s;
}

function tlsOptions(s, prefix) {
  const tls = {};
  if (s[`${prefix}CA_LOCATION`]) tls.ca = [readFile(`${prefix}CA_LOCATION`, s[`${prefix}CA_LOCATION`])];
  if (prefix === 'SSL_' && s.SSL_CERTIFICATE_LOCATION) tls.cert = readFile('SSL_CERTIFICATE_LOCATION', s.SSL_CERTIFICATE_LOCATION);
  if (prefix === 'SSL_' && s.SSL_KEY_LOCATION) tls.key = readFile('SSL_KEY_LOCATION', s.SSL_KEY_LOCATION);
  return tls;
}

// The kafkajs Kafka() configuration (Node's TLS checks the broker's certificate and host name).
function kafkaConfig(s) {
  const config = { clientId: s.GROUP_ID, brokers: s.BOOTSTRAP_SERVERS.split(',').map((b) => b.trim()) };
  if (s.SECURITY_PROTOCOL === 'SSL' || s.SECURITY_PROTOCOL === 'SASL_SSL') {
    const tls = tlsOptions(s, 'SSL_');
    config.ssl = Object.keys(tls).length > 0 ? tls : true;
  }
  if (s.SECURITY_PROTOCOL.startsWith('SASL_')) {
    config.sasl = { mechanism: s.SASL_MECHANISM.toLowerCase(), username: s.SASL_USERNAME, password: s.SASL_PASSWORD };
  }
  return config;
}

// The SchemaRegistryClient configuration: the URL without user-info; basic auth from SCHEMA_REGISTRY_USERNAME and
// SCHEMA_REGISTRY_PASSWORD, else from the URL's user-info (percent-decoded); a CA for an https registry.
function registryConfig(s) {
  const url = new URL(s.SCHEMA_REGISTRY_URL);
  let user = s.SCHEMA_REGISTRY_USERNAME;
  let password = s.SCHEMA_REGISTRY_PASSWORD;
  if (!user && url.username) {
    user = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  }
  url.username = '';
  url.password = '';
  const config = { baseURLs: [url.toString().replace(/\/$/, '')] };
  if (user) config.basicAuthCredentials = { credentialsSource: 'USER_INFO', userInfo: `${user}:${password}` };
  const tls = tlsOptions(s, 'SCHEMA_REGISTRY_');
  if (tls.ca) config.createAxiosDefaults = { httpsAgent: new https.Agent({ ca: tls.ca }) };
  return config;
}

module.exports = { DEFAULTS, SettingsError, load, kafkaConfig, registryConfig };
