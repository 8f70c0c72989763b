/**
 * Typed messages of the codex app-server protocol.
 *
 * <p>Most types here are generated from the JSON schema of the pinned codex release (see {@code schema/README.md}):
 * one record per schema object, a Java {@code enum} per string enum, a {@code sealed interface} per union, and the
 * four method unions {@link dev.codexclient.protocol.ClientRequest}, {@link dev.codexclient.protocol.ServerRequest},
 * {@link dev.codexclient.protocol.ServerNotification} and {@link dev.codexclient.protocol.ClientNotification} with
 * their descriptor tables ({@code *Methods}). Read and write them with {@link dev.codexclient.protocol.ProtocolJson#mapper()}.
 *
 * <p>Generated records are plain values: a member absent on the wire is {@code null} (boxed types), except where
 * the protocol distinguishes absent from {@code null}, which is modelled by {@link dev.codexclient.protocol.Tristate}.
 * Surface that exists only in codex's experimental API carries {@link dev.codexclient.protocol.Experimental}.
 */
package dev.codexclient.protocol;
