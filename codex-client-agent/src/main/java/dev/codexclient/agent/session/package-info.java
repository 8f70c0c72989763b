/**
 * Sessions: where runs with a session key keep their thread ({@link dev.codexclient.agent.session.SessionStore}, in
 * memory or in a directory several processes share), one {@link dev.codexclient.agent.session.SessionEntry} per key,
 * matched against the next run to resume its thread.
 */
package dev.codexclient.agent.session;
