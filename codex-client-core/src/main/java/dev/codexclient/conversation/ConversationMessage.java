package dev.codexclient.conversation;

import dev.codexclient.Inputs;
import dev.codexclient.protocol.UserInput;
import java.util.List;
import java.util.Objects;

/**
 * One message of a chat history as a framework's chat memory keeps it, in the terms the turn runner needs: who said
 * it, its text, and for a user message what codex is sent (text, images). The runner compares a history with what
 * codex has seen by role and text (an answer by role alone: a framework may keep a streamed answer's text otherwise
 * than codex's final message), so a framework's own message objects never reach core.
 *
 * @param role  who said it
 * @param text  its text; empty for none
 * @param input what codex is sent of a user message, in order; empty for the other roles
 */
public record ConversationMessage(Role role, String text, List<UserInput> input) {
    /** Who said a message. */
    public enum Role {
        /** The user: what codex answers. */
        USER,
        /** An answer of the model. */
        ASSISTANT,
        /** Instructions: a new thread's developer instructions, never a turn's input. */
        SYSTEM,
        /** A tool's result that the framework kept (codex runs its own tools; such a message is history only). */
        TOOL
    }

    /**
     * Checks the message and copies its input.
     *
     * @param role  who said it
     * @param text  its text; empty for none
     * @param input what codex is sent of a user message
     */
    public ConversationMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(text, "text");
        input = List.copyOf(input);
    }

    /**
     * {@return a user message of text alone}
     *
     * @param text the text
     */
    public static ConversationMessage user(String text) {
        return new ConversationMessage(Role.USER, text, text.isEmpty() ? List.of() : List.of(Inputs.text(text)));
    }

    /**
     * {@return a user message with what codex is sent of it}
     *
     * @param text  its text, by which it is compared
     * @param input the inputs codex is sent (text, images), in order
     */
    public static ConversationMessage user(String text, List<UserInput> input) {
        return new ConversationMessage(Role.USER, text, input);
    }

    /**
     * {@return an answer of the model}
     *
     * @param text its text
     */
    public static ConversationMessage assistant(String text) {
        return new ConversationMessage(Role.ASSISTANT, text, List.of());
    }

    /**
     * {@return instructions}
     *
     * @param text their text
     */
    public static ConversationMessage system(String text) {
        return new ConversationMessage(Role.SYSTEM, text, List.of());
    }

    /**
     * {@return a tool's result, kept as history}
     *
     * @param text its text, with the tool's name if the framework has one
     */
    public static ConversationMessage tool(String text) {
        return new ConversationMessage(Role.TOOL, text, List.of());
    }

    /** Whether {@code other} stands for the same message of a history: the same role and, but for answers, text. */
    boolean sameAs(ConversationMessage other) {
        return role == other.role && (role == Role.ASSISTANT || text.equals(other.text));
    }
}
