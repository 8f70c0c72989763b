/**
 * Threads over several app-servers, with the client's face: a {@link dev.codexclient.pool.CodexPool} of members, each
 * a {@link dev.codexclient.CodexClient}, with a cap and a queue of turns per member, is a {@link dev.codexclient.Codex};
 * its threads are {@link dev.codexclient.pool.PooledThread}s, {@link dev.codexclient.CodexThread}s placed on one
 * member. Code written against {@code Codex} (a framework bridge, an agent runner, an application service) runs on a
 * pool as on a client. Members are given to the builder or named by a {@link dev.codexclient.pool.MemberResolver} (a
 * fixed list, DNS A/AAAA or SRV records, or the user's), which the pool asks again on an interval; their health is
 * checked on a timer, with ejection and re-admission.
 */
package dev.codexclient.pool;
