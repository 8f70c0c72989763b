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

    /**
     * Plain text.
     *
     * @param text the text
     * @return the input
     */
    public static UserInput text(String text) {
        return new UserInput.Text(Objects.requireNonNull(text, "text"), List.of());
    }

    /**
     * An image by URL ({@code https:} or a {@code data:} URL).
     *
     * @param url the image's URL
     * @return the input
     */
    public static UserInput imageUrl(String url) {
        return new UserInput.Image(null, Objects.requireNonNull(url, "url"), null);
    }

    /**
     * An image file on the machine codex runs on.
     *
     * @param path the file's path, as the server sees it
     * @return the input
     */
    public static UserInput localImage(Path path) {
        return new UserInput.LocalImage(null, Objects.requireNonNull(path, "path").toString());
    }

    /**
     * A skill, by name and the path of its {@code SKILL.md}.
     *
     * @param name the skill's name
     * @param path the path of its {@code SKILL.md}, as the server sees it
     * @return the input
     */
    public static UserInput skill(String name, Path path) {
        return new UserInput.Skill(Objects.requireNonNull(name, "name"), Objects.requireNonNull(path, "path")
                .toString());
    }

    /**
     * A mention of a file or resource, by display name and path.
     *
     * @param name the name shown for it
     * @param path its path
     * @return the input
     */
    public static UserInput mention(String name, String path) {
        return new UserInput.Mention(Objects.requireNonNull(name, "name"), Objects.requireNonNull(path, "path"));
    }
}
