package dev.converge.testkit;

import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An independent record of which jobs' handlers ran, and how often: handlers call {@link #ran},
 * and {@link #check} says which expected jobs never ran and which ran more than once. It trusts
 * nothing the engine says about itself, so it can catch the engine lying.
 */
public final class ExecutionLog {
    private final Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();

    public void ran(long jobId) {
        runs.computeIfAbsent(jobId, id -> new AtomicInteger()).incrementAndGet();
    }

    public int runsOf(long jobId) {
        AtomicInteger n = runs.get(jobId);
        return n == null ? 0 : n.get();
    }

    public int totalRuns() {
        return runs.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    public Report check(Collection<Long> expected) {
        Set<Long> want = new HashSet<>(expected);
        Set<Long> missing = new TreeSet<>();
        Map<Long, Integer> duplicated = new TreeMap<>();
        Set<Long> unexpected = new TreeSet<>();
        for (Long id : want) {
            int n = runsOf(id);
            if (n == 0) {
                missing.add(id);
            } else if (n > 1) {
                duplicated.put(id, n);
            }
        }
        for (Long id : runs.keySet()) {
            if (!want.contains(id)) {
                unexpected.add(id);
            }
        }
        return new Report(expected.size(), missing, duplicated, unexpected);
    }

    /** What a check found: each expected job ran once exactly when all three sets are empty. */
    public record Report(int expected, Set<Long> missing, Map<Long, Integer> duplicated, Set<Long> unexpected) {
        public boolean exactlyOnce() {
            return missing.isEmpty() && duplicated.isEmpty() && unexpected.isEmpty();
        }

        @Override
        public String toString() {
            return expected + " jobs expected; missing " + first(missing) + ", ran more than once " + first(duplicated.keySet())
                    + ", unexpected " + first(unexpected);
        }

        private static String first(Set<Long> ids) {
            return ids.size() <= 10 ? ids.toString() : ids.size() + " jobs, first " + ids.stream().limit(10).toList();
        }
    }
}
