package dev.baton.engine.model;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Identifiers}' hand-written checks accept exactly the language of docs/contract.md's patterns ("Identifiers and
 * names"): ids {@code [A-Za-z0-9._:-]{1,128}}, names {@code [A-Za-z0-9_-]{1,64}} — over strings near the alphabets'
 * edges (the characters next to each range, non-ASCII letters and digits, surrogates), around the length bounds, and
 * empty.
 */
class IdentifiersProperties {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    @Provide
    Arbitrary<String> candidates() {
        // mostly allowed characters, with the neighbours of every range and a few non-ASCII look-alikes mixed in
        Arbitrary<Character> allowed = Arbitraries.chars().with("ABCXYZabcxyz0189._:-".toCharArray());
        Arbitrary<Character> edges = Arbitraries.chars().with(
                "@[`{/;,+ \t\n\u0000\u007f\u00e9\u0660\uff21\u212a\u0130\ud83d\ude00".toCharArray());
        Arbitrary<Character> any = Arbitraries.chars();
        Arbitrary<Character> c = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(40, allowed), net.jqwik.api.Tuple.of(2, edges), net.jqwik.api.Tuple.of(1, any));
        return Arbitraries.oneOf(
                c.list().ofMaxSize(6).map(IdentifiersProperties::join),
                c.list().ofMinSize(60).ofMaxSize(70).map(IdentifiersProperties::join),
                c.list().ofMinSize(124).ofMaxSize(132).map(IdentifiersProperties::join));
    }

    private static String join(java.util.List<Character> cs) {
        StringBuilder b = new StringBuilder(cs.size());
        for (char ch : cs) b.append(ch);
        return b.toString();
    }

    @Property(tries = 3000)
    void shouldAcceptExactlyThePatterns(@ForAll("candidates") String s) {
        assertThat(Identifiers.isValidId(s)).as("id %s", s).isEqualTo(ID.matcher(s).matches());
        assertThat(Identifiers.isValidName(s)).as("name %s", s).isEqualTo(NAME.matcher(s).matches());
    }

    @Property(tries = 200)
    void shouldAcceptEveryStringOfTheAlphabetUpToTheBound(
            @ForAll("names") String name) {
        assertThat(Identifiers.isValidName(name)).isEqualTo(name.length() <= 64);
        assertThat(Identifiers.isValidId(name)).isEqualTo(name.length() <= 128);
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().withChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
                .ofMinLength(1).ofMaxLength(140);
    }

    @Property(tries = 1)
    void shouldRejectNullAndEmpty() {
        assertThat(Identifiers.isValidName(null)).isFalse();
        assertThat(Identifiers.isValidName("")).isFalse();
        assertThat(Identifiers.isValidId(null)).isFalse();
        assertThat(Identifiers.isValidId("")).isFalse();
    }
}
