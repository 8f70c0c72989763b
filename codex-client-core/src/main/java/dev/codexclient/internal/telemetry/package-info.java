/** Delivery of a client's telemetry to the user's telemetry listener. Not part of the API. */
package dev.codexclient.internal.telemetry;
