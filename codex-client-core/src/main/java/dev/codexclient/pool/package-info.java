/**
 * Threads over several app-servers: a {@link dev.codexclient.pool.CodexPool} of members, each a
 * {@link dev.codexclient.CodexClient}, with a cap and a queue of turns per member; its threads are
 * {@link dev.codexclient.pool.PooledThread}s placed on one member.
 */
package dev.codexclient.pool;
