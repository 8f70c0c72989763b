/**
 * The drift report's command line: {@link dev.codexclient.drift.SchemaDrift}.
 */
package dev.codexclient.drift;
