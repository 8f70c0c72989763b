/**
 * Threads over several app-servers: a {@link dev.codexclient.pool.CodexPool} of members, each a
 * {@link dev.codexclient.CodexClient}, with a cap and a queue of turns per member; its threads are
 * {@link dev.codexclient.pool.PooledThread}s placed on one member. Members are given to the builder or named by a
 * {@link dev.codexclient.pool.MemberResolver} (a fixed list, DNS A/AAAA or SRV records, or the user's), which the
 * pool asks again on an interval; their health is checked on a timer, with ejection and re-admission.
 */
package dev.codexclient.pool;
