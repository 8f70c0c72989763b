/**
 * Conversations on codex threads, and the one turn runner the chat-model integrations (Spring AI, LangChain4j) are
 * thin adapters of: {@link dev.codexclient.conversation.CodexConversations} maps each conversation id to a codex
 * thread, runs a conversation's turns one after another, sends codex of a chat history only what it has not seen
 * ({@link dev.codexclient.conversation.ConversationMessage}, {@link dev.codexclient.conversation.ConversationTurn}),
 * bounds a blocking turn and interrupts it past its bound, streams the answer with backpressure
 * ({@link dev.codexclient.conversation.AnswerPart}), and keeps a bounded number of conversations in memory.
 * Applications that keep conversations on codex threads without a framework use it directly.
 */
package dev.codexclient.conversation;
