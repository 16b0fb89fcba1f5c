# Baton's container image: `docker build -t baton .` (used by docker-compose.yml and deploy/).
# Stage 1 builds the reactor; stage 2 is a JRE with target/baton.jar and its dependency jars.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml ./
COPY schemas/pom.xml schemas/
COPY engine/pom.xml engine/
COPY processors/pom.xml processors/
COPY topology/pom.xml topology/
COPY service/pom.xml service/
COPY replay/pom.xml replay/
COPY cli/pom.xml cli/
# the dependency downloads form their own layer, rebuilt only when a pom changes
RUN mvn -B -q dependency:go-offline -DexcludeReactor=true || true
COPY schemas schemas
COPY engine engine
COPY processors processors
COPY topology topology
COPY service service
COPY replay replay
COPY cli cli
RUN mvn -B -q -DskipTests package -pl cli -am

FROM eclipse-temurin:17-jre
# curl: for container health checks against /readyz
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/* \
    && useradd --uid 10001 --home-dir /var/lib/baton --create-home baton
COPY --from=build /src/cli/target/lib/ /app/lib/
COPY --from=build /src/cli/target/baton.jar /app/baton.jar
USER 10001
WORKDIR /var/lib/baton
EXPOSE 8080
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=60 -XX:+ExitOnOutOfMemoryError"
# java expands the lib/* class-path wildcard itself (no shell needed)
ENTRYPOINT ["java", "-cp", "/app/baton.jar:/app/lib/*", "dev.baton.cli.BatonCommand"]
CMD ["run", "--http-port", "8080"]
