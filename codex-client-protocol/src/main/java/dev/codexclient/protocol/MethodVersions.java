package dev.codexclient.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Which codex versions have a method, of the versions this SDK was generated with (the <em>checked</em> versions,
 * {@link #checked()}: every version the SDK supports and a few in between, each recorded by the methods its
 * exported schema lists). Every generated descriptor carries one ({@link MethodDescriptor#versions()},
 * {@link NotificationDescriptor#versions()}).
 *
 * <pre>{@code
 * MethodVersions v = ClientRequestMethods.THREAD_REVERT.versions();
 * v.since();                  // Optional[0.148.0]: the first checked version that has it
 * v.isAbsentFrom("0.120.0");  // true: 0.120.0 is checked and lacks it
 * v.isAbsentFrom("0.150.0");  // false: 0.150.0 is not checked, so nothing is certain
 * }</pre>
 *
 * <p>Knowledge is exact for a checked version and nothing else: a version between two checked ones may have added
 * or dropped a method, so the answers never guess about it. Methods the schema does not describe (the extra
 * notifications of the overrides) and descriptors made by hand are {@link #unrecorded()}.
 */
public final class MethodVersions {
    private static final MethodVersions UNRECORDED = new MethodVersions(new boolean[0]);

    /** Whether each checked version (same index as {@link #checked()}) has the method; empty when unrecorded. */
    private final boolean[] present;

    private MethodVersions(boolean[] present) {
        this.present = present;
    }

    /**
     * {@return the checked codex versions, oldest first} The generator reads one method list per version from
     * {@code schema/methods}.
     */
    public static List<String> checked() {
        return CheckedVersions.ALL;
    }

    /**
     * A method every checked version from {@code first} on has.
     *
     * @param first a checked version
     * @return the versions
     * @throws IllegalArgumentException when {@code first} is not a checked version
     */
    public static MethodVersions from(String first) {
        return range(first, CheckedVersions.ALL.get(CheckedVersions.ALL.size() - 1));
    }

    /**
     * A method the checked versions from {@code first} through {@code last} have, and no other.
     *
     * @param first a checked version
     * @param last  a checked version, not before {@code first}
     * @return the versions
     * @throws IllegalArgumentException when either is not a checked version, or {@code last} comes first
     */
    public static MethodVersions range(String first, String last) {
        int a = index(first);
        int b = index(last);
        if (b < a) {
            throw new IllegalArgumentException(last + " comes before " + first);
        }
        boolean[] present = new boolean[CheckedVersions.ALL.size()];
        Arrays.fill(present, a, b + 1, true);
        return new MethodVersions(present);
    }

    /**
     * A method exactly these checked versions have.
     *
     * @param versions checked versions
     * @return the versions
     * @throws IllegalArgumentException when one is not a checked version
     */
    public static MethodVersions of(String... versions) {
        boolean[] present = new boolean[CheckedVersions.ALL.size()];
        for (String v : versions) {
            present[index(v)] = true;
        }
        return new MethodVersions(present);
    }

    /** {@return the versions of a method no method list records: nothing is known} */
    public static MethodVersions unrecorded() {
        return UNRECORDED;
    }

    private static int index(String version) {
        int i = CheckedVersions.ALL.indexOf(version);
        if (i < 0) {
            throw new IllegalArgumentException("not a checked codex version: " + version + " (checked: "
                    + CheckedVersions.ALL + ")");
        }
        return i;
    }

    /** {@return whether the method lists record this method at all} */
    public boolean recorded() {
        return present.length > 0;
    }

    /** {@return the checked versions that have the method, oldest first; empty when unrecorded} */
    public List<String> versions() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < present.length; i++) {
            if (present[i]) {
                out.add(CheckedVersions.ALL.get(i));
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** {@return the first checked version that has the method; empty when unrecorded} */
    public Optional<String> since() {
        List<String> v = versions();
        return v.isEmpty() ? Optional.empty() : Optional.of(v.get(0));
    }

    /**
     * {@return the last checked version that has the method, when a newer checked version lacks it} Empty when the
     * newest checked version has it (or when unrecorded).
     */
    public Optional<String> until() {
        if (!recorded() || present[present.length - 1]) {
            return Optional.empty();
        }
        List<String> v = versions();
        return v.isEmpty() ? Optional.empty() : Optional.of(v.get(v.size() - 1));
    }

    /**
     * {@return whether {@code version} is a checked version that has the method}
     *
     * @param version a codex version as written, e.g. {@code 0.171.0}
     */
    public boolean isPresentIn(String version) {
        int i = CheckedVersions.ALL.indexOf(version);
        return recorded() && i >= 0 && present[i];
    }

    /**
     * {@return whether {@code version} is a checked version that lacks the method} False for any version not
     * checked, newer ones included: only a method list makes the absence certain.
     *
     * @param version a codex version as written, e.g. {@code 0.120.0}
     */
    public boolean isAbsentFrom(String version) {
        int i = CheckedVersions.ALL.indexOf(version);
        return recorded() && i >= 0 && !present[i];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MethodVersions other && Arrays.equals(present, other.present);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(present);
    }

    /** {@return e.g. {@code MethodVersions[0.148.0, 0.169.0, 0.171.0]}, or {@code MethodVersions[unrecorded]}} */
    @Override
    public String toString() {
        return "MethodVersions" + (recorded() ? versions().toString() : "[unrecorded]");
    }
}
