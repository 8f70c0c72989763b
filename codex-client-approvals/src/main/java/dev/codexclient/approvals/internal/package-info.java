/** The inbox's workings; not part of its API. */
package dev.codexclient.approvals.internal;
