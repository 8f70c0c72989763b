package dev.codexclient.examples;

import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decides whether a command codex asks to run is provably read-only, for an approval policy that accepts those
 * without asking. Safe to copy: it accepts only what it can prove harmless and declines everything else.
 *
 * <p>Why so strict: codex hands the command to a shell, so any shell syntax can turn a harmless-looking command into
 * one that writes, deletes or runs something else. A prefix check ("starts with {@code git status}") accepts
 * {@code git status | tee status.txt}, {@code ls; rm -rf ~} or {@code cat $(curl …)}. So a command is accepted only
 * when
 * <ol>
 *   <li>it is a plain command line, or one shell wrapper codex adds ({@code /bin/bash -lc '…'}) around one, and
 *       that line consists only of letters, digits, spaces and {@code - _ . / , : = + @ %}: no operators
 *       ({@code | & ;}), redirections ({@code < >}), substitutions ({@code $ `}), quotes, escapes, globs or line
 *       breaks, so the shell has nothing to interpret;</li>
 *   <li>its program is on an explicit allow-list of programs that only read, whatever their arguments
 *       ({@link #PROGRAMS}), named by its bare name (a path could name any program).</li>
 * </ol>
 * Left out on purpose: {@code git} (a repository's own configuration, such as {@code core.fsmonitor}, a pager or an
 * external diff driver, can make even {@code git status} run programs), {@code sort} and {@code uniq} (they can
 * write an output file), {@code find} ({@code -delete}, {@code -exec}), {@code tail} ({@code -f} never ends), and
 * anything that starts an interpreter.
 */
final class ReadOnlyCommands {

    /** Programs that read and print, and have no option that writes a file or runs another program. */
    static final Set<String> PROGRAMS = Set.of("ls", "pwd", "cat", "head", "wc", "grep");

    /** The shell wrapper codex puts around a command: {@code /bin/bash -lc '…'} or {@code bash -c "…"}. */
    private static final Pattern WRAPPER = Pattern.compile("(?:/usr)?(?:/bin/)?(?:ba|z)?sh -l?c (.*)", Pattern.DOTALL);

    /** Everything a command line may consist of: nothing here means anything to a shell. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9 _./,:=+@%-]+");

    private ReadOnlyCommands() {
    }

    /** True only for a command that is provably read-only by the rules above; false for null or anything else. */
    static boolean isReadOnly(String command) {
        if (command == null) {
            return false;
        }
        String line = unwrap(command.strip());
        if (line == null || !PLAIN.matcher(line).matches()) {
            return false;
        }
        List<String> words = List.of(line.strip().split(" +"));
        return !words.isEmpty() && PROGRAMS.contains(words.get(0));
    }

    /**
     * The command line inside codex's shell wrapper, or the command itself when it has none; null when the wrapper's
     * argument is anything but one quoted string with nothing for the shell to expand in it.
     */
    private static String unwrap(String command) {
        Matcher wrapped = WRAPPER.matcher(command);
        if (!wrapped.matches()) {
            return command;
        }
        String argument = wrapped.group(1);
        if (argument.length() < 2) {
            return null;
        }
        char quote = argument.charAt(0);
        String inner = argument.substring(1, argument.length() - 1);
        boolean singleQuoted = quote == '\'' && argument.endsWith("'") && inner.indexOf('\'') < 0;
        // Inside double quotes the shell still expands $, ` and \; the PLAIN check rejects those, and a quote inside
        // would end the argument early.
        boolean doubleQuoted = quote == '"' && argument.endsWith("\"") && inner.indexOf('"') < 0;
        return singleQuoted || doubleQuoted ? inner : null;
    }
}
