package dev.codexclient;

import dev.codexclient.protocol.DynamicToolCallOutputContentItem;
import java.util.List;
import java.util.Objects;

/**
 * What a dynamic tool returns to the model: content items (text, images) and whether the call succeeded.
 *
 * <pre>{@code
 * ToolResult.text("Ticket ABC-123 is open");
 * ToolResult.failure("no such ticket");          // success:false, the model sees the message
 * }</pre>
 */
public final class ToolResult {
    private final boolean success;
    private final List<DynamicToolCallOutputContentItem> contentItems;

    private ToolResult(boolean success, List<DynamicToolCallOutputContentItem> contentItems) {
        this.success = success;
        this.contentItems = List.copyOf(contentItems);
    }

    /** A successful result with one text item. */
    public static ToolResult text(String text) {
        return new ToolResult(true, List.of(textItem(text)));
    }

    /** A successful result with one image, given as a URL (an {@code https:} or {@code data:} URL). */
    public static ToolResult image(String imageUrl) {
        return new ToolResult(true, List.of(new DynamicToolCallOutputContentItem.InputImage(
                Objects.requireNonNull(imageUrl, "imageUrl"))));
    }

    /** A successful result with the given items, in order. */
    public static ToolResult of(List<DynamicToolCallOutputContentItem> items) {
        return new ToolResult(true, items);
    }

    /** A failed call: {@code success:false} with the message as text, so the model can react to it. */
    public static ToolResult failure(String message) {
        return new ToolResult(false, List.of(textItem(message)));
    }

    static DynamicToolCallOutputContentItem textItem(String text) {
        return new DynamicToolCallOutputContentItem.InputText(Objects.requireNonNull(text, "text"));
    }

    public boolean success() {
        return success;
    }

    public List<DynamicToolCallOutputContentItem> contentItems() {
        return contentItems;
    }

    @Override
    public String toString() {
        return "ToolResult[success=" + success + ", items=" + contentItems.size() + "]";
    }
}
