# syntax=docker/dockerfile:1
# Baton's container image: `docker build -t baton .` (used by docker-compose.yml and deploy/). Offline or behind
# a mirror: the build arguments below (README.md, "Container image"). Built and run as the production pod by
# ProductionPodIT.
# It holds a JRE and what `baton run` needs, nothing else: the service module's jar and its runtime
# class path (Kafka Streams, Avro, Jackson, Micrometer, picocli, log4j) — no in-process broker, no
# Kafka test kit, no demo or backfill (use ./baton for those). See README.md, "Container image".
#
# Stage 1 builds the service module and the modules it depends on. Every step fails the build when
# its command fails (no `|| true`); Maven's downloads are kept in a BuildKit cache between builds.
# The base images and extra Maven arguments are build arguments: the defaults are the public images;
# behind a corporate mirror or offline, pass your own (README.md, "Container image").
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG RUNTIME_IMAGE=eclipse-temurin:17-jre
FROM ${BUILD_IMAGE} AS build
# e.g. "-s build-tools/maven-settings.xml" for a mirror, or "-o -Dmaven.repo.local=/host-m2/repository" offline
ARG MAVEN_BUILD_ARGS=""
WORKDIR /src
COPY pom.xml ./
# the one code style, checked by every module's validate phase (the root pom names this file)
COPY build-tools build-tools
COPY schemas schemas
COPY consumer/pom.xml consumer/
COPY engine engine
COPY processors processors
COPY topology topology
COPY service service
COPY replay/pom.xml replay/
COPY cli/pom.xml cli/
COPY benchmarks/pom.xml benchmarks/
# maven.test.skip: the image needs no test classes, and some tests depend on modules copied here as a pom only (the
# service's trace test uses the consumer kit)
RUN --mount=type=cache,target=/root/.m2 mvn -B -q -Dmaven.test.skip=true ${MAVEN_BUILD_ARGS} package -pl service -am
# the image's files in one place; fail if the in-process broker or a test kit slipped in
RUN set -eu; mkdir -p /out/app; \
    cp service/target/baton-service-*.jar /out/app/baton-service.jar; \
    cp -r service/target/lib /out/app/lib; \
    if ls /out/app/lib | grep -E '^(kafka_2\.13|kafka-test-common|kafka-server-[0-9]|kafka-streams-test-utils|junit|baton-replay|baton-cli)'; then \
      echo "the image would ship test or broker jars" >&2; exit 1; fi

FROM ${RUNTIME_IMAGE}
RUN useradd --uid 10001 --user-group --no-create-home --home-dir /var/lib/baton baton \
    && mkdir -p /var/lib/baton && chown 10001:10001 /var/lib/baton
COPY --from=build /out/app/ /app/
USER 10001:10001
WORKDIR /var/lib/baton
EXPOSE 8080
# In a container the endpoints listen on every interface: the kubelet's probes, Prometheus and the other instances
# (forwarded session queries) come from outside. `./baton run` on a laptop keeps the loopback default.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=40 -XX:+ExitOnOutOfMemoryError" \
    BATON_HTTP_PORT=8080 \
    BATON_HTTP_BIND_ADDRESS=0.0.0.0 \
    BATON_STATE_DIR=/var/lib/baton/state \
    BATON_LOG_FORMAT=json
# What the kubelet's liveness probe asks (/healthz), where it asks it: the container's own address ($HOSTNAME
# resolves to it in /etc/hosts), not the loopback, so an instance that only listens on 127.0.0.1 is unhealthy here
# too. bash's /dev/tcp: no curl or wget in the image.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/$HOSTNAME/${BATON_HTTP_PORT:-8080} && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
# java expands the lib/* class-path wildcard itself (no shell needed)
ENTRYPOINT ["java", "-cp", "/app/baton-service.jar:/app/lib/*", "dev.baton.service.command.ServiceCommand"]
CMD ["run"]
