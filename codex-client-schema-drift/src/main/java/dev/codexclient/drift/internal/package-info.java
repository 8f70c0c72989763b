/**
 * How the drift report works: where schemas come from ({@code SchemaSources}), their shape in comparable terms
 * ({@code ProtocolSchema}), the comparison ({@code SchemaDiff}), what the client API relies on
 * ({@code ClientApiRequirements}) and the text and JSON reports ({@code DriftReport}). Not exported.
 */
package dev.codexclient.drift.internal;
