/**
 * Where the inbox keeps its entries: {@link dev.codexclient.approvals.store.InboxStore}, in memory or in a database
 * through JDBC (H2, PostgreSQL).
 */
package dev.codexclient.approvals.store;
