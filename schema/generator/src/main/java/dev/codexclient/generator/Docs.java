package dev.codexclient.generator;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns schema descriptions (Markdown-ish) into Javadoc. */
final class Docs {
    private Docs() {
    }

    private static final Pattern DEPRECATED = Pattern.compile("(?s)^\\s*(@deprecated\\b|Deprecated\\b).*");
    private static final Pattern CODE = Pattern.compile("`([^`\\n]+)`");

    static boolean deprecated(String desc) {
        return desc != null && DEPRECATED.matcher(desc).matches();
    }

    /** Removes the section markers and escapes the rest for Javadoc (paragraphs kept). */
    static String clean(String desc) {
        String d = strip(desc);
        return d == null ? null : escape(d);
    }

    /** Removes the section markers codex puts on the first variant of a group. */
    static String strip(String desc) {
        if (desc == null) {
            return null;
        }
        String d = desc.strip();
        for (String marker : List.of("NEW APIs", "DEPRECATED APIs below", "NEW NOTIFICATIONS")) {
            if (d.startsWith(marker)) {
                d = d.substring(marker.length()).strip();
            }
        }
        return d.isEmpty() ? null : d;
    }

    /** Escapes text for a Javadoc comment; backtick spans become code. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder();
        Matcher m = CODE.matcher(text);
        int last = 0;
        while (m.find()) {
            out.append(html(text.substring(last, m.start())));
            String code = m.group(1);
            if (code.contains("{") || code.contains("}") || code.contains("@") || code.contains("*/")
                    || code.contains("\\")) {
                out.append("<code>").append(html(code)).append("</code>");
            } else {
                out.append("{@code ").append(code).append('}');
            }
            last = m.end();
        }
        out.append(html(text.substring(last)));
        return out.toString();
    }

    private static String html(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("@", "&#64;")
                .replace("*/", "*&#47;").replace("\\", "&#92;").replace("{", "&#123;").replace("}", "&#125;");
    }

    /** A full Javadoc block: the main text (may be null) and tag lines. */
    static String block(String indent, String text, List<String> tags) {
        List<String> lines = new ArrayList<>();
        if (text != null && !text.isBlank()) {
            for (String para : text.strip().split("\n\\s*\n")) {
                if (!lines.isEmpty()) {
                    lines.add("<p>");
                }
                for (String l : para.split("\n")) {
                    lines.add(l.stripTrailing());
                }
            }
        }
        if (!tags.isEmpty() && !lines.isEmpty()) {
            lines.add("");
        }
        lines.addAll(tags);
        if (lines.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder(indent).append("/**\n");
        for (String l : lines) {
            sb.append(indent).append(" *");
            if (!l.isEmpty()) {
                sb.append(' ').append(l);
            }
            sb.append('\n');
        }
        sb.append(indent).append(" */\n");
        return sb.toString();
    }

    /**
     * The text of a Javadoc comment (without the comment markers, which JavaPoet writes): paragraphs of
     * {@code text} separated by {@code <p>}, then the block tags.
     */
    static String javadoc(String text, List<String> tags) {
        String block = block("", text, tags);
        if (block.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (String line : block.split("\n")) {
            if (line.equals("/**") || line.equals(" */")) {
                continue;
            }
            sb.append(line.startsWith(" * ") ? line.substring(3) : line.startsWith(" *") ? line.substring(2) : line)
                    .append('\n');
        }
        return sb.toString();
    }

    /** The cleaned description, or a sentence saying the schema has none for {@code what}. */
    static String orNone(String desc, String what) {
        String d = clean(desc);
        return d != null ? d : "The schema gives no description of " + what + ".";
    }

    /** One-line form of already escaped text, for a {@code @param} tag. */
    static String inline(String text) {
        if (text == null) {
            return "";
        }
        return text.strip().replaceAll("\\s*\n\\s*", " ");
    }

    /**
     * The sentence on which checked codex versions have a method, e.g. "Since codex 0.148.0 (not in 0.147.0)." or
     * "Since codex 0.98.0 or earlier. Until codex 0.169.0 (not in 0.171.0)."; empty when {@code versions} is null.
     *
     * @param versions the checked versions that have the method, oldest first, or null when unrecorded
     * @param checked  every checked version, oldest first
     */
    static String versions(List<String> versions, List<String> checked) {
        if (versions == null || versions.isEmpty()) {
            return "";
        }
        int first = checked.indexOf(versions.get(0));
        int last = checked.indexOf(versions.get(versions.size() - 1));
        StringBuilder out = new StringBuilder("Since codex ").append(versions.get(0));
        out.append(first == 0 ? " or earlier" : " (not in " + checked.get(first - 1) + ")").append('.');
        if (last < checked.size() - 1) {
            out.append(" Until codex ").append(checked.get(last)).append(" (not in ").append(checked.get(last + 1))
                    .append(").");
        }
        List<String> gaps = new ArrayList<>();
        for (int i = first; i <= last; i++) {
            if (!versions.contains(checked.get(i))) {
                gaps.add(checked.get(i));
            }
        }
        if (!gaps.isEmpty()) {
            out.append(" Not in codex ").append(String.join(", ", gaps)).append('.');
        }
        out.append(" See {@link MethodVersions}.");
        return out.toString();
    }
}
