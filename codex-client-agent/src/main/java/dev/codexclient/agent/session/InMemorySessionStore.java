package dev.codexclient.agent.session;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** {@link SessionStore#inMemory()}: a concurrent map. */
final class InMemorySessionStore implements SessionStore {
    private final Map<String, SessionEntry> entries = new ConcurrentHashMap<>();

    @Override
    public Optional<SessionEntry> load(String key) {
        return Optional.ofNullable(entries.get(Objects.requireNonNull(key, "key")));
    }

    @Override
    public void save(String key, SessionEntry entry) {
        entries.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(entry, "entry"));
    }

    @Override
    public void remove(String key) {
        entries.remove(Objects.requireNonNull(key, "key"));
    }
}
