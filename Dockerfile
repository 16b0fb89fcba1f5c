# syntax=docker/dockerfile:1
# Baton's container image: `docker build -t baton .` (used by docker-compose.yml and deploy/).
# It holds a JRE and what `baton run` needs, nothing else: the service module's jar and its runtime
# class path (Kafka Streams, Avro, Jackson, Micrometer, picocli, log4j) — no in-process broker, no
# Kafka test kit, no demo or backfill (use ./baton for those). See README.md, "Container image".
#
# Stage 1 builds the service module and the modules it depends on. Every step fails the build when
# its command fails (no `|| true`); Maven's downloads are kept in a BuildKit cache between builds.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml ./
COPY schemas schemas
COPY consumer/pom.xml consumer/
COPY engine engine
COPY processors processors
COPY topology topology
COPY service service
COPY replay/pom.xml replay/
COPY cli/pom.xml cli/
COPY benchmarks/pom.xml benchmarks/
RUN --mount=type=cache,target=/root/.m2 mvn -B -q -DskipTests package -pl service -am
# the image's files in one place; fail if the in-process broker or a test kit slipped in
RUN set -eu; mkdir -p /out/app; \
    cp service/target/baton-service-*.jar /out/app/baton-service.jar; \
    cp -r service/target/lib /out/app/lib; \
    if ls /out/app/lib | grep -E '^(kafka_2\.13|kafka-test-common|kafka-server-[0-9]|kafka-streams-test-utils|junit|baton-replay|baton-cli)'; then \
      echo "the image would ship test or broker jars" >&2; exit 1; fi

FROM eclipse-temurin:17-jre
RUN useradd --uid 10001 --user-group --no-create-home --home-dir /var/lib/baton baton \
    && mkdir -p /var/lib/baton && chown 10001:10001 /var/lib/baton
COPY --from=build /out/app/ /app/
USER 10001:10001
WORKDIR /var/lib/baton
EXPOSE 8080
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=40 -XX:+ExitOnOutOfMemoryError" \
    BATON_HTTP_PORT=8080 \
    BATON_STATE_DIR=/var/lib/baton/state
# /healthz over bash's /dev/tcp: no curl or wget in the image
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${BATON_HTTP_PORT:-8080} && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
# java expands the lib/* class-path wildcard itself (no shell needed)
ENTRYPOINT ["java", "-cp", "/app/baton-service.jar:/app/lib/*", "dev.baton.service.command.ServiceCommand"]
CMD ["run"]
