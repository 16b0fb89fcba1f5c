package dev.baton.serde;

import java.nio.file.Path;

/**
 * How Baton talks to an HTTP schema registry beyond its URL (settings {@code baton.schema-registry.*}).
 *
 * @param basicAuthUserInfo  {@code USER:PASSWORD} for HTTP basic auth (like Confluent's
 *                           {@code basic.auth.user.info}), or null; credentials in the URL itself work too
 * @param bearerToken        a bearer token sent as {@code Authorization: Bearer ...}, or null
 * @param trustStore         a trust store for the registry's TLS certificate, or null for the JVM's default
 * @param trustStorePassword its password, or null
 * @param trustStoreType     its type ({@code PKCS12}, {@code JKS})
 * @param autoRegister       false: never register a schema; write with the schema already registered under the
 *                           subject (its latest version when that is Baton's schema, else the version that is), for
 *                           registries that forbid auto-registration
 */
public record RegistryOptions(String basicAuthUserInfo, String bearerToken, Path trustStore, String trustStorePassword,
                              String trustStoreType, boolean autoRegister) {
    public static final RegistryOptions DEFAULTS = new RegistryOptions(null, null, null, null, "PKCS12", true);

    public RegistryOptions {
        if (basicAuthUserInfo != null && basicAuthUserInfo.isEmpty()) basicAuthUserInfo = null;
        if (bearerToken != null && bearerToken.isEmpty()) bearerToken = null;
        if (basicAuthUserInfo != null && bearerToken != null) {
            throw new IllegalArgumentException("give either basic auth user info or a bearer token for the schema "
                    + "registry, not both");
        }
        if (trustStoreType == null || trustStoreType.isEmpty()) trustStoreType = "PKCS12";
    }

    /** Never printed: the secrets are replaced by {@code ***}. */
    @Override
    public String toString() {
        return "RegistryOptions[basicAuth=" + (basicAuthUserInfo == null ? "none" : "***") + ", bearerToken="
                + (bearerToken == null ? "none" : "***") + ", trustStore=" + trustStore + ", autoRegister="
                + autoRegister + "]";
    }

    /** {@code url} with any user info replaced by {@code ***}, for messages and logs. */
    public static String redact(String url) {
        return url == null ? null : url.replaceAll("(?<=://)[^/@]*@", "***@");
    }
}
