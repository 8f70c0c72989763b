/** Small readings of protocol values as JSON (item ids, compact text for messages). Not exported. */
package dev.codexclient.internal.json;
