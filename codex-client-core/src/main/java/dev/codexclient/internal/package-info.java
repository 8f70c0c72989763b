/**
 * Implementation details shared across the core (secret redaction, ...). Not exported.
 */
package dev.codexclient.internal;
