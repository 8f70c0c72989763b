/**
 * The reliability suite: faults of the app-server injected through the testkit's fake (as a real child process
 * where pipes matter) and the real codex, each case checked for hangs, lost or duplicated notifications, unanswered
 * or twice-answered server requests, untyped outcomes and leaked threads, descriptors and processes; the stuck-turn
 * watchdog; and a test that secrets never reach logs or messages. Figures: {@code target/reliability.md}.
 *
 * <p>Run: {@code mvn -B -o test -pl integration-tests -am -Dtest='dev.codexclient.it.reliability.*Test'
 * -Dsurefire.failIfNoSpecifiedTests=false} (add {@code -DexcludedGroups=real-codex} without the codex binary).
 */
package dev.codexclient.it.reliability;
