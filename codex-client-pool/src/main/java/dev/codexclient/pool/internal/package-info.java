/**
 * The pool's engine, behind the public {@code dev.codexclient.pool} package: {@code PoolRuntime} (what
 * {@code CodexPool} is the facade of; asynchronous only), its members ({@code PoolMember}, {@code PoolMembers}), the
 * state behind a {@code PooledThread} ({@code PlacedThread}, with {@code ThreadEvents}, its listeners and subscribers
 * across handles), the pool's notification listeners over every member ({@code PoolNotifications}), the work on its
 * timers ({@code PoolMaintenance}) and its clock ({@code PoolTimer}), its one thread ({@code PoolThread}), its
 * settings, the DNS lookups of its resolvers and a member's health state (consecutive failures, ejection,
 * re-admission with backoff). It builds on the exported packages of the core ({@code Codex}, {@code CodexClient},
 * {@code CodexThread}, {@code CodexTurn}) as a user would, and takes from {@code dev.codexclient.pool} only its value
 * types ({@code PoolEndpoint}, {@code MemberResolver}, {@code MemberStats}, {@code MemberState}), never
 * {@code CodexPool} or {@code PooledThread}. Not exported.
 */
package dev.codexclient.pool.internal;
