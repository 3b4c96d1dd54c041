package dev.converge.queue.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All of an engine's {@link EngineObserver}s as one; each call is a list check when there are none.
 * The delivery events, called for every job, loop without a lambda (nothing allocated per delivery);
 * the rarer ones share {@link #each}.
 */
public final class EngineObservers implements EngineObserver {
    private static final Logger log = LoggerFactory.getLogger(EngineObservers.class);
    private final List<EngineObserver> all = new CopyOnWriteArrayList<>();

    public void add(EngineObserver o) {
        all.add(java.util.Objects.requireNonNull(o));
    }

    /** Whether no listener is registered: a caller may skip working out what it would tell them. */
    public boolean isEmpty() {
        return all.isEmpty();
    }

    private interface Call {
        void on(EngineObserver o);
    }

    private interface Start {
        Activity on(EngineObserver o);
    }

    private void each(Call call) {
        for (EngineObserver o : all) {
            try {
                call.on(o);
            } catch (RuntimeException e) {
                log.debug("engine observer failed", e);
            }
        }
    }

    private Activity begin(Start start) {
        if (all.isEmpty()) {
            return Activity.NONE;
        }
        Activity[] begun = new Activity[all.size()];
        int n = 0;
        for (EngineObserver o : all) {
            if (n == begun.length) {
                break; // one added meanwhile: it sees the next activity
            }
            Activity a;
            try {
                a = start.on(o);
            } catch (RuntimeException e) {
                log.debug("engine observer failed", e);
                a = Activity.NONE;
            }
            begun[n++] = a == null ? Activity.NONE : a;
        }
        int count = n;
        return (outcome, error) -> {
            // ended in reverse order: a span opened last (and made current) is closed first
            for (int i = count - 1; i >= 0; i--) {
                try {
                    begun[i].end(outcome, error);
                } catch (RuntimeException e) {
                    log.debug("engine observer failed", e);
                }
            }
        };
    }

    private static void failed(RuntimeException e) {
        log.debug("engine observer failed", e);
    }

    @Override
    public void enqueued(String queue, String kind) {
        for (EngineObserver o : all) {
            try {
                o.enqueued(queue, kind);
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    @Override
    public void started(LeasedJob job, long waitedMillis) {
        for (EngineObserver o : all) {
            try {
                o.started(job, waitedMillis);
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    @Override
    public Activity running(LeasedJob job) {
        // nothing allocated here when a single listener sets something up (the logging context)
        Activity only = Activity.NONE;
        Activity[] several = null;
        int n = 0;
        for (EngineObserver o : all) {
            Activity a;
            try {
                a = o.running(job);
            } catch (RuntimeException e) {
                failed(e);
                continue;
            }
            if (a == null || a == Activity.NONE) {
                continue;
            }
            if (n == 0) {
                only = a;
            } else {
                if (several == null) {
                    several = new Activity[all.size()];
                    several[0] = only;
                }
                if (n < several.length) {
                    several[n] = a;
                }
            }
            n++;
        }
        if (several == null) {
            return only;
        }
        Activity[] begun = several;
        int count = Math.min(n, several.length);
        return (outcome, error) -> {
            // ended in reverse order: a span opened last (and made current) is closed first
            for (int i = count - 1; i >= 0; i--) {
                try {
                    begun[i].end(outcome, error);
                } catch (RuntimeException e) {
                    failed(e);
                }
            }
        };
    }

    @Override
    public void ran(LeasedJob job, long nanos) {
        for (EngineObserver o : all) {
            try {
                o.ran(job, nanos);
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    @Override
    public void settled(LeasedJob job, String outcome) {
        for (EngineObserver o : all) {
            try {
                o.settled(job, outcome);
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    @Override
    public void rescued(int n) {
        each(o -> o.rescued(n));
    }

    @Override
    public Activity ensure(String kind, String safety) {
        return begin(o -> o.ensure(kind, safety));
    }

    @Override
    public Activity leafCall(String type, String operation, String safety) {
        return begin(o -> o.leafCall(type, operation, safety));
    }

    @Override
    public Activity flowStart(String kind) {
        return begin(o -> o.flowStart(kind));
    }

    @Override
    public void tornDown(String kind, String outcome) {
        each(o -> o.tornDown(kind, outcome));
    }

    @Override
    public void reaped(int n) {
        each(o -> o.reaped(n));
    }

    @Override
    public void resolved(String kind, String outcome) {
        each(o -> o.resolved(kind, outcome));
    }

    @Override
    public void flowMoved(String kind, String state) {
        each(o -> o.flowMoved(kind, state));
    }

    @Override
    public void compensationRan(String type, String outcome) {
        each(o -> o.compensationRan(type, outcome));
    }

    @Override
    public void watchdog(String action, int n) {
        each(o -> o.watchdog(action, n));
    }
}
