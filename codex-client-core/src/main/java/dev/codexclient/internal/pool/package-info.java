/**
 * The pool's engine, behind the public {@code dev.codexclient.pool} package: {@code PoolRuntime} (what
 * {@code CodexPool} is the facade of), its members ({@code PoolMember}, {@code PoolMembers}), the state behind a
 * {@code PooledThread} ({@code PlacedThread}), the work on its timers ({@code PoolMaintenance}), its settings, the
 * DNS lookups of its resolvers and a member's health state (consecutive failures, ejection, re-admission with
 * backoff). It builds on the client API ({@code CodexClient}, {@code CodexThread}, {@code CodexTurn}) as a user would,
 * and takes from {@code dev.codexclient.pool} only its value types ({@code PoolEndpoint}, {@code MemberResolver},
 * {@code MemberStats}, {@code MemberState}), never {@code CodexPool} or {@code PooledThread}. Not exported.
 */
package dev.codexclient.internal.pool;
