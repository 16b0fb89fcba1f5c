#!/usr/bin/env bash
# Build, start and stop the test schema registry: Apicurio Registry 2.4.2.Final speaking the
# Confluent API at http://127.0.0.1:PORT/apis/ccompat/v7.
#
#   registry.sh build        build target/quarkus-app/quarkus-run.jar (no-op when up to date)
#   registry.sh start PORT   start it on 127.0.0.1:PORT, wait until /health/ready, write the pid file
#   registry.sh stop         stop the registry started by `start`
#   registry.sh url          print the Confluent API base URL of the running registry
#
# Logs go to target/registry.log, the pid to target/registry.pid.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAR="$HERE/target/quarkus-app/quarkus-run.jar"
PID_FILE="$HERE/target/registry.pid"
PORT_FILE="$HERE/target/registry.port"
LOG_FILE="$HERE/target/registry.log"
READY_TIMEOUT_S="${REGISTRY_READY_TIMEOUT_S:-90}"

die() { echo "registry.sh: $*" >&2; exit 1; }

# The jar is up to date when it is newer than every input of the build.
jar_up_to_date() {
  [[ -f "$JAR" ]] || return 1
  local newer
  newer="$(find "$HERE/pom.xml" "$HERE/settings.xml" "$HERE/src" -newer "$JAR" -type f -print -quit)"
  [[ -z "$newer" ]]
}

build() {
  if jar_up_to_date; then
    echo "registry.sh: $JAR is up to date" >&2
    return 0
  fi
  echo "registry.sh: building Apicurio Registry (first time downloads ~210 MB from Maven Central)" >&2
  local started=$SECONDS
  # -s: our settings only (mirror of * to Central); the user's local repository is still used.
  local build_log
  build_log="$(mktemp)"
  if ! (cd "$HERE" && mvn -B -q -Dstyle.color=never -s settings.xml -DskipTests package) >"$build_log" 2>&1; then
    tail -n 40 "$build_log" >&2
    rm -f "$build_log"
    die "build failed (run: cd $HERE && mvn -B -s settings.xml package)"
  fi
  rm -f "$build_log"
  [[ -f "$JAR" ]] || die "build finished but $JAR is missing"
  touch "$JAR"
  echo "registry.sh: built in $((SECONDS - started)) s" >&2
}

running_pid() {
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

start() {
  local port="${1:-}"
  [[ "$port" =~ ^[0-9]+$ ]] || die "usage: registry.sh start PORT"
  [[ -f "$JAR" ]] || die "$JAR is missing; run: $HERE/registry.sh build"
  if pid="$(running_pid)"; then
    die "already running (pid $pid, port $(cat "$PORT_FILE" 2>/dev/null || echo '?')); run: registry.sh stop"
  fi
  mkdir -p "$HERE/target"
  # setsid: own process group, so the registry survives the shell that started it
  setsid java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$port" \
    -jar "$JAR" >"$LOG_FILE" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$PID_FILE"
  echo "$port" >"$PORT_FILE"
  local deadline=$((SECONDS + READY_TIMEOUT_S))
  until curl -fsS -o /dev/null "http://127.0.0.1:$port/health/ready" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$PID_FILE"
      tail -n 30 "$LOG_FILE" >&2 || true
      die "registry exited before it was ready (log: $LOG_FILE)"
    fi
    if ((SECONDS >= deadline)); then
      kill "$pid" 2>/dev/null || true
      rm -f "$PID_FILE"
      die "not ready after ${READY_TIMEOUT_S} s (log: $LOG_FILE)"
    fi
    sleep 0.3
  done
  echo "registry.sh: ready (pid $pid) at http://127.0.0.1:$port/apis/ccompat/v7" >&2
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PID_FILE"
    echo "registry.sh: not running" >&2
    return 0
  fi
  kill "$pid"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  rm -f "$PID_FILE"
  echo "registry.sh: stopped (pid $pid)" >&2
}

url() {
  running_pid >/dev/null || die "not running"
  echo "http://127.0.0.1:$(cat "$PORT_FILE")/apis/ccompat/v7"
}

case "${1:-}" in
  build) build ;;
  start) start "${2:-}" ;;
  stop) stop ;;
  url) url ;;
  *) echo "usage: registry.sh build | start PORT | stop | url" >&2; exit 2 ;;
esac
