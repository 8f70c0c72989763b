package dev.codexclient;

import dev.codexclient.protocol.UserInput;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Factories for the inputs of a turn ({@link UserInput}), e.g.
 * {@code thread.startTurn(List.of(Inputs.text("What is in this picture?"), Inputs.localImage(Path.of("a.png"))))}.
 */
public final class Inputs {
    private Inputs() {
    }

    /** Plain text. */
    public static UserInput text(String text) {
        return new UserInput.Text(Objects.requireNonNull(text, "text"), List.of());
    }

    /** An image by URL ({@code https:} or a {@code data:} URL). */
    public static UserInput imageUrl(String url) {
        return new UserInput.Image(null, Objects.requireNonNull(url, "url"), null);
    }

    /** An image file on the machine codex runs on. */
    public static UserInput localImage(Path path) {
        return new UserInput.LocalImage(null, Objects.requireNonNull(path, "path").toString());
    }

    /** A skill, by name and the path of its {@code SKILL.md}. */
    public static UserInput skill(String name, Path path) {
        return new UserInput.Skill(Objects.requireNonNull(name, "name"), Objects.requireNonNull(path, "path")
                .toString());
    }

    /** A mention of a file or resource, by display name and path. */
    public static UserInput mention(String name, String path) {
        return new UserInput.Mention(Objects.requireNonNull(name, "name"), Objects.requireNonNull(path, "path"));
    }
}
