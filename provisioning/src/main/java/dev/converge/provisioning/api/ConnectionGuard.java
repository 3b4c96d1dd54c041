package dev.converge.provisioning.api;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two bounds Jetty leaves to the application, kept on Jetty's own connection events and scheduler.
 *
 * <ul>
 *   <li><b>A share per client address.</b> A connection that would give its address more than
 *       {@code perAddress} open connections is closed as soon as it opens, so one client (slow or
 *       not) cannot take every slot of the connection limit.</li>
 *   <li><b>A request deadline.</b> Jetty's idle timeout restarts on every byte and its minimum data
 *       rate covers bodies only, so a client that sends a header line every few seconds holds its
 *       connection forever. Here each connection is looked at every half deadline: bytes arrived
 *       while no request's headers completed means a request is on its way; if one stays on its way
 *       for a whole deadline the connection is closed. A connection waiting for its response, or
 *       idle between requests, receives nothing and is left to the idle timeout.</li>
 * </ul>
 */
final class ConnectionGuard implements Connection.Listener {
    private static final Logger log = LoggerFactory.getLogger(ConnectionGuard.class);

    private final int perAddress;
    private final long deadlineNanos;
    private final Scheduler scheduler;
    private final Map<InetAddress, AtomicInteger> open = new ConcurrentHashMap<>();
    /** Each open connection's address, taken when it opened: a closed channel no longer tells it. */
    private final Map<Connection, InetAddress> addresses = new ConcurrentHashMap<>();

    ConnectionGuard(int perAddress, java.time.Duration deadline, Scheduler scheduler) {
        this.perAddress = perAddress;
        this.deadlineNanos = deadline.toNanos();
        this.scheduler = scheduler;
    }

    @Override
    public void onOpened(Connection connection) {
        InetAddress address = address(connection);
        if (address != null) {
            addresses.put(connection, address);
            int now = open.computeIfAbsent(address, a -> new AtomicInteger()).incrementAndGet();
            if (now > perAddress) {
                log.debug("closing a connection: its address holds {} already", perAddress);
                connection.getEndPoint().close();
                return;
            }
        }
        new Watch(connection).arm();
    }

    @Override
    public void onClosed(Connection connection) {
        InetAddress address = addresses.remove(connection);
        if (address != null) {
            open.computeIfPresent(address, (a, n) -> n.decrementAndGet() <= 0 ? null : n);
        }
    }

    /** Connections open from the address now (tests). */
    int openFrom(InetAddress address) {
        AtomicInteger n = open.get(address);
        return n == null ? 0 : n.get();
    }

    private static InetAddress address(Connection connection) {
        SocketAddress remote = connection.getEndPoint().getRemoteSocketAddress();
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }

    /** One connection's progress, compared every half deadline. */
    private final class Watch implements Runnable {
        private final Connection connection;
        private long requests;
        private long bytes;
        /** When a request that has not arrived whole was first seen on its way; 0 when none is. */
        private long onItsWaySince;

        Watch(Connection connection) {
            this.connection = connection;
            this.requests = connection.getMessagesIn();
            this.bytes = connection.getBytesIn();
        }

        void arm() {
            scheduler.schedule(this, deadlineNanos / 2, TimeUnit.NANOSECONDS);
        }

        @Override
        public void run() {
            if (!connection.getEndPoint().isOpen()) {
                return;
            }
            long now = System.nanoTime();
            long r = connection.getMessagesIn();
            long b = connection.getBytesIn();
            if (r != requests) {
                onItsWaySince = 0;
            } else if (b != bytes && onItsWaySince == 0) {
                onItsWaySince = now;
            }
            requests = r;
            bytes = b;
            if (onItsWaySince != 0 && now - onItsWaySince >= deadlineNanos) {
                // first seen on its way at least a deadline ago, so it began between one and one and a
                // half deadlines ago (it started at most half a deadline before that look)
                log.debug("closing a connection whose request has not arrived within the request deadline");
                connection.getEndPoint().close();
                return;
            }
            arm();
        }
    }
}
