/**
 * The runtime of a client ({@link dev.codexclient.internal.session.ClientRuntime}): connection supervision and
 * restarts, the threads held and the routing of their events, waits, telemetry of turns, and the settings the
 * client was built with. The public handles are built over it; nothing here knows their types. Not exported.
 */
package dev.codexclient.internal.session;
