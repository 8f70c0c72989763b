package dev.codexclient.protocol;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks protocol surface that exists only in codex's experimental schema export.
 *
 * <p>The server accepts experimental methods and fields only from a client that declared the
 * {@code experimentalApi} capability in {@code initialize}; they may change or disappear in any codex release.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.FIELD, ElementType.METHOD, ElementType.RECORD_COMPONENT})
public @interface Experimental {
}
