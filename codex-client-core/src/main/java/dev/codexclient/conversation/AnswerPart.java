package dev.codexclient.conversation;

import dev.codexclient.TurnResult;
import java.util.Objects;

/**
 * A part of a streamed answer ({@link CodexConversations#stream(ConversationTurn)}): text as codex writes it, then
 * the turn's end with its whole result.
 */
public sealed interface AnswerPart {
    /**
     * A piece of the answer's text. An answer codex sent whole, without deltas, comes as one piece before the end.
     *
     * @param threadId the thread of the turn
     * @param turnId   the turn
     * @param text     the text
     */
    record Text(String threadId, String turnId, String text) implements AnswerPart {
        /**
         * Checks the piece.
         *
         * @param threadId the thread of the turn
         * @param turnId   the turn
         * @param text     the text
         */
        public Text {
            Objects.requireNonNull(threadId, "threadId");
            Objects.requireNonNull(turnId, "turnId");
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * The end of a turn that completed or was interrupted (a failed one ends the stream with its
     * {@link dev.codexclient.errors.CodexTurnFailedException}).
     *
     * @param result the turn's result
     */
    record End(TurnResult result) implements AnswerPart {
        /**
         * Checks the end.
         *
         * @param result the turn's result
         */
        public End {
            Objects.requireNonNull(result, "result");
        }
    }
}
