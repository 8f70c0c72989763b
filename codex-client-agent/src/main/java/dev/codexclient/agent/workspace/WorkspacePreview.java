package dev.codexclient.agent.workspace;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What a {@link Workspace} holds: per mount, which files were copied (the first {@value MountPreview#COPIED_LISTED}
 * by name, all of them counted) with their bytes, and what was left out and why (the first
 * {@value MountPreview#SKIPPED_LISTED} by name, all of them counted by reason). {@link #render()} gives a neutral
 * text a program can print or a prompt can include.
 *
 * @param mounts        one entry per mount, in the order they were declared
 * @param files         files copied, over all mounts
 * @param bytes         bytes copied, over all mounts
 * @param maxTotalBytes the workspace's total byte budget, when one was set
 */
public record WorkspacePreview(List<MountPreview> mounts, long files, long bytes, OptionalLong maxTotalBytes) {

    /**
     * Checks the members and copies the list.
     *
     * @param mounts        one entry per mount, in the order they were declared
     * @param files         files copied, over all mounts
     * @param bytes         bytes copied, over all mounts
     * @param maxTotalBytes the workspace's total byte budget, when one was set
     */
    public WorkspacePreview {
        mounts = List.copyOf(mounts);
        Objects.requireNonNull(maxTotalBytes, "maxTotalBytes");
    }

    /** Why an entry of a mount was not copied. */
    public enum SkipReason {
        /** It matched an exclude glob (a directory is skipped whole). */
        EXCLUDED,
        /** It matched no include glob. */
        NOT_INCLUDED,
        /** It is a device, a FIFO or a socket: only regular files are copied. */
        SPECIAL_FILE,
        /** It is a symbolic link to a directory inside the mount: the directory is copied where it is, once. */
        SYMLINK_TO_DIRECTORY,
        /** It is a symbolic link whose target does not exist. */
        DANGLING_SYMLINK,
        /**
         * Its name is not valid in the platform's encoding (on Linux: not UTF-8): it could not be written under the
         * same name.
         */
        INVALID_NAME,
        /**
         * The workspace's file system takes its name for one already copied from the same directory (names that
         * differ only in case, or in Unicode normalization, on a file system that folds them): the first in name
         * order was copied, this one was not written over it.
         */
        NAME_CLASH
    }

    /**
     * One entry left out.
     *
     * @param path   its path relative to the mount's host path, with {@code /} as separator
     * @param reason why it was left out
     */
    public record Skipped(String path, SkipReason reason) {
        /**
         * Checks the members.
         *
         * @param path   its path relative to the mount's host path, with {@code /} as separator
         * @param reason why it was left out
         */
        public Skipped {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * What one mount contributed.
     *
     * @param mount        the mount
     * @param files        files copied
     * @param bytes        bytes copied
     * @param copied       the first files copied (at most {@link #COPIED_LISTED}), in copy order, as paths relative
     *                     to the mount's host path with {@code /} as separator; {@link #files} counts all of them
     * @param skipped      the first entries left out (at most {@link #SKIPPED_LISTED}), in copy order
     * @param skippedCount how many entries were left out, by reason, all of them counted
     */
    public record MountPreview(HostMount mount, long files, long bytes, List<String> copied, List<Skipped> skipped,
                               Map<SkipReason, Long> skippedCount) {
        /** How many copied files a mount's preview lists by name; {@link #files()} counts all of them. */
        public static final int COPIED_LISTED = 200;
        /** How many skipped entries a mount's preview lists by name; the counts cover all of them. */
        public static final int SKIPPED_LISTED = 50;

        /**
         * Checks the members and copies the collections.
         *
         * @param mount        the mount
         * @param files        files copied
         * @param bytes        bytes copied
         * @param copied       the first files copied, in copy order
         * @param skipped      the first entries left out, in copy order
         * @param skippedCount how many entries were left out, by reason
         */
        public MountPreview {
            Objects.requireNonNull(mount, "mount");
            copied = List.copyOf(copied);
            skipped = List.copyOf(skipped);
            skippedCount = skippedCount.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(skippedCount));
        }

        /**
         * How many entries were left out, over all reasons.
         *
         * @return the count
         */
        public long skippedTotal() {
            return skippedCount.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * A plain-text summary: per mount a line with its files and bytes and its budget, the files copied, and what was
     * left out by reason. Control characters in a name (a newline) are written escaped (a newline as {@code \n}),
     * so that one name is one line and cannot pass for another line of the summary.
     *
     * @return the text, ending with a newline
     */
    public String render() {
        StringBuilder out = new StringBuilder();
        out.append("Workspace: ").append(files).append(files == 1 ? " file, " : " files, ").append(bytes)
                .append(" bytes");
        maxTotalBytes.ifPresent(max -> out.append(" (budget ").append(max).append(" bytes)"));
        out.append('\n');
        for (MountPreview m : mounts) {
            out.append("- /").append(m.mount().mountPath()).append(" <- ").append(hostName(m.mount().hostPath()))
                    .append(": ").append(m.files()).append(m.files() == 1 ? " file, " : " files, ")
                    .append(m.bytes()).append(" bytes");
            m.mount().maxBytes().ifPresent(max -> out.append(" (budget ").append(max).append(" bytes)"));
            out.append('\n');
            if (m.files() > 0) {
                out.append("  copied:\n");
                for (String path : m.copied()) {
                    out.append("    ").append(escaped(path)).append('\n');
                }
                if (m.files() > m.copied().size()) {
                    out.append("    (").append(m.files() - m.copied().size()).append(" more)\n");
                }
            }
            for (SkipReason reason : SkipReason.values()) {
                Long n = m.skippedCount().get(reason);
                if (n != null) {
                    out.append("  left out, ").append(reason.name().toLowerCase(java.util.Locale.ROOT)
                            .replace('_', ' ')).append(": ").append(n).append('\n');
                }
            }
            for (Skipped s : m.skipped()) {
                out.append("    ").append(escaped(s.path())).append(" (")
                        .append(s.reason().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '))
                        .append(")\n");
            }
            if (m.skippedTotal() > m.skipped().size()) {
                out.append("    (").append(m.skippedTotal() - m.skipped().size()).append(" more)\n");
            }
        }
        return out.toString();
    }

    /** A name on one line: control characters escaped, the backslash too so that an escape is never ambiguous. */
    static String escaped(String name) {
        StringBuilder out = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            String replacement = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\\' ? "\\\\"
                    : Character.isISOControl(c) || c == '\u2028' || c == '\u2029' ? String.format("\\u%04x", (int) c)
                    : null;
            if (replacement != null && out == null) {
                out = new StringBuilder(name.length() + 8).append(name, 0, i);
            }
            if (out != null) {
                if (replacement != null) {
                    out.append(replacement);
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? name : out.toString();
    }

    /** Only the host path's last name: a prompt need not learn the host's directory layout. */
    private static String hostName(Path host) {
        Path name = host.getFileName();
        return name == null ? host.toString() : name.toString();
    }
}
