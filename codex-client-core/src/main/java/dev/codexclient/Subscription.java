package dev.codexclient;

/** A registered listener; {@link #close()} removes it. Closing twice is harmless. */
@FunctionalInterface
public interface Subscription extends AutoCloseable {
    @Override
    void close();
}
