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
@CodexExperimental("dynamicTools")
public final class ToolResult {
    private final boolean success;
    private final List<DynamicToolCallOutputContentItem> contentItems;

    private ToolResult(boolean success, List<DynamicToolCallOutputContentItem> contentItems) {
        this.success = success;
        this.contentItems = List.copyOf(contentItems);
    }

    /**
     * A successful result with one text item.
     *
     * @param text the text for the model
     * @return the result
     */
    public static ToolResult text(String text) {
        return new ToolResult(true, List.of(textItem(text)));
    }

    /**
     * A successful result with one image, given as a URL (an {@code https:} or {@code data:} URL).
     *
     * @param imageUrl the image's URL
     * @return the result
     */
    public static ToolResult image(String imageUrl) {
        return new ToolResult(true, List.of(new DynamicToolCallOutputContentItem.InputImage(
                Objects.requireNonNull(imageUrl, "imageUrl"))));
    }

    /**
     * A successful result with the given items, in order.
     *
     * @param items the content items (text, images); copied
     * @return the result
     */
    public static ToolResult of(List<DynamicToolCallOutputContentItem> items) {
        return new ToolResult(true, items);
    }

    /**
     * A failed call: {@code success:false} with the message as text, so the model can react to it.
     *
     * @param message what went wrong, for the model
     * @return the result
     */
    public static ToolResult failure(String message) {
        return new ToolResult(false, List.of(textItem(message)));
    }

    static DynamicToolCallOutputContentItem textItem(String text) {
        return new DynamicToolCallOutputContentItem.InputText(Objects.requireNonNull(text, "text"));
    }

    /** {@return whether the call succeeded} The model is told either way. */
    public boolean success() {
        return success;
    }

    /** {@return the content items for the model, in order; an unmodifiable list} */
    public List<DynamicToolCallOutputContentItem> contentItems() {
        return contentItems;
    }

    @Override
    public String toString() {
        return "ToolResult[success=" + success + ", items=" + contentItems.size() + "]";
    }
}
