/** Delivery of client events to the user's event listener. Not part of the API. */
package dev.codexclient.internal.events;
