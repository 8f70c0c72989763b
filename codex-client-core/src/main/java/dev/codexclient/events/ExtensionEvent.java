package dev.codexclient.events;

/**
 * An event an integration built on the client publishes through the client's own listener, with
 * {@link dev.codexclient.CodexClient#publishEvent(ExtensionEvent)}: one listener sees the client's events and the
 * integration's, in the order they happened, on the same thread rules. Integrations define their events as types
 * implementing this interface (for instance {@code codex-client-agent}'s run events); a listener reacts to the
 * ones it knows in {@link CodexEventListener#extensionEvent(ExtensionEvent)} and ignores the rest.
 *
 * <p>Core knows no integration: this interface is the whole contract, so an integration adds events without core
 * depending on it. Like the client's events, an extension event should carry no secrets, prompts or item text.
 */
public interface ExtensionEvent {
    /**
     * Which integration published the event, e.g. {@code "agent"}: lets a listener (or a log) sort events
     * without knowing their types.
     *
     * @return a short, stable name
     */
    String source();
}
