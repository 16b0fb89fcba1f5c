package dev.baton.avro;

import org.apache.avro.util.ClassSecurityValidator;

/**
 * Lets Avro load Baton's generated classes. Avro 1.12.2 checks every class it loads by name against a
 * trusted list (java.lang and the {@code org.apache.avro.SERIALIZABLE_PACKAGES} system property), and
 * the generated builders load nested record classes by name when they copy a default value, so without
 * this a {@code Turn} with its default empty trail cannot be built. Only this package is added, on top
 * of whatever is already trusted.
 */
public final class TrustedClasses {

    private static final String PACKAGE = TrustedClasses.class.getPackageName() + ".";
    private static volatile boolean registered;

    private TrustedClasses() {
    }

    /** Adds {@code dev.baton.avro.*} to Avro's trusted classes; idempotent, cheap after the first call. */
    public static void register() {
        if (registered) {
            return;
        }
        synchronized (TrustedClasses.class) {
            if (!registered) {
                ClassSecurityValidator.ClassSecurityPredicate before = ClassSecurityValidator.getGlobal();
                ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(before,
                    type -> type.getName().startsWith(PACKAGE)));
                registered = true;
            }
        }
    }
}
