package dev.codexclient.pool.internal;

import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.telemetry.PoolMemberRemoved;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The members of one pool, in the order they were added, and the choices made among them: where a new thread goes,
 * what each member counts, when all of them are idle, and their end with the pool. The list changes as the
 * resolver's answers are followed ({@link PoolMaintenance}, which orders those changes); reading it takes no lock.
 */
final class PoolMembers implements Iterable<PoolMember> {
    private final List<PoolMember> members = new CopyOnWriteArrayList<>();

    PoolMembers(List<PoolMember> given) {
        members.addAll(given);
    }

    @Override
    public Iterator<PoolMember> iterator() {
        return members.iterator();
    }

    Stream<PoolMember> stream() {
        return members.stream();
    }

    int size() {
        return members.size();
    }

    void add(PoolMember member) {
        members.add(member);
    }

    void remove(PoolMember member) {
        members.remove(member);
    }

    /**
     * The healthy member with the least load, among those not in {@code avoid} when there is one; else among all.
     * Never blocks: a member whose client gave up counts as its replacement ({@link PoolMember#placeable()}).
     *
     * @param avoid members a call just lost its connection to: another healthy member is preferred
     * @throws CodexPoolRejectedException when no member is healthy, or there is none
     */
    PoolMember place(Set<PoolMember> avoid) {
        Comparator<PoolMember> leastLoaded = Comparator.comparingInt(PoolMember::load)
                .thenComparingInt(PoolMember::threadCount);
        List<PoolMember> healthy = members.stream().filter(PoolMember::placeable).toList();
        return healthy.stream().filter(m -> !avoid.contains(m)).min(leastLoaded)
                .or(() -> healthy.stream().min(leastLoaded))
                .orElseThrow(() -> new CodexPoolRejectedException(members.isEmpty()
                        ? "the pool has no member (its resolver named none yet)"
                        : "no member of the pool is healthy"));
    }

    /**
     * {@return the member that a thread of this id is placed on, when it may take the thread now} A stored thread a
     * server still has loaded can be resumed there only: codex lets one server at a time write a thread of a storage
     * several share.
     *
     * @param threadId the thread's id
     */
    Optional<PoolMember> holding(String threadId) {
        return members.stream().filter(m -> m.holds(threadId) && m.placeable()).findFirst();
    }

    /**
     * Checks every member that does not drain with {@code check}.
     *
     * @return how many members are healthy after the check
     */
    int checkHealth(Consumer<PoolMember> check) {
        int healthy = 0;
        for (PoolMember m : members) {
            if (!m.draining()) {
                check.accept(m);
            }
            if (m.healthy()) {
                healthy++;
            }
        }
        return healthy;
    }

    /** The counts of each member, one member after another. */
    List<MemberStats> stats() {
        List<MemberStats> out = new ArrayList<>();
        for (PoolMember m : members) {
            out.add(m.stats());
        }
        return out;
    }

    /** The client of the member of that name at this moment (replaced first when it gave up, blocking for it). */
    Optional<CodexClient> client(String memberName) {
        return members.stream().filter(m -> m.name().equals(memberName)).findFirst().map(PoolMember::client);
    }

    /** {@return a future that completes once no member has a running or queued turn} */
    CompletableFuture<Void> idle() {
        List<CompletableFuture<Void>> idle = new ArrayList<>();
        for (PoolMember m : members) {
            idle.add(m.idle());
        }
        return CompletableFuture.allOf(idle.toArray(CompletableFuture[]::new));
    }

    /**
     * Closes every member, reporting the removal of each that was not draining already (a draining one was reported
     * when it began to drain); every member is closed even when one fails.
     *
     * @throws RuntimeException the first failure, the later ones suppressed in it
     */
    void closeAll(PoolTelemetry events) {
        RuntimeException first = null;
        for (PoolMember m : members) {
            if (!m.draining()) {
                MemberStats st = m.stats();
                events.emit(l -> l.poolMemberRemoved(new PoolMemberRemoved(m.name(), st.threads(),
                        st.runningTurns() + st.queuedTurns())));
            }
            try {
                m.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
