/**
 * Approvals a person decides: {@link dev.codexclient.approvals.ApprovalInbox}, an approval policy whose requests
 * become entries of a store and wait for a person's decision, through any instance that shares the store, across
 * restarts. The guide: docs/approvals.md.
 */
package dev.codexclient.approvals;
