package dev.codexclient;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks hand-written API that follows codex's experimental API: a method or type that works only on a client built
 * with {@link CodexClientBuilder#experimentalApi(boolean) experimentalApi(true)}, or that sends a member or method
 * codex marks experimental (the generated protocol marks its own with {@link dev.codexclient.protocol.Experimental}).
 *
 * <p>What it marks changes when codex changes it, in any codex release, and is not held to this SDK's rule that the
 * API changes only on purpose between its releases: a codex that drops or reshapes the experimental method may make
 * the marked API fail, or change what it answers, without a change of its signature. The rest of the API does not
 * change behaviour under an unchanged signature.
 *
 * <p>Retained in the class files (and at run time), so that the recorded public API of each module and the Javadoc
 * show it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface CodexExperimental {
    /**
     * {@return what of codex's experimental API the marked element follows}, e.g. {@code "dynamicTools"} or
     * {@code "thread/search/stream"}
     */
    String value();
}
