/**
 * The pool's machinery: DNS lookups for its resolvers, and the health state of a member (consecutive failures,
 * ejection, re-admission with backoff). Not exported.
 */
package dev.codexclient.internal.pool;
