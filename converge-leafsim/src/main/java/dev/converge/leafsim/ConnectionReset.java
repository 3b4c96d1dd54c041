package dev.converge.leafsim;

import io.javalin.http.Context;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;

/**
 * Drops the client's TCP connection with no answer: linger 0 makes the close send RST, so the
 * caller sees "connection reset" after its request was already acted on. This is the failure
 * where a driver must not conclude that nothing happened.
 */
final class ConnectionReset {
    private ConnectionReset() {
    }

    static void abort(Context ctx) {
        ServletContextRequest request = ServletContextRequest.getServletContextRequest(ctx.req());
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        if (endPoint instanceof SocketChannelEndPoint socketEndPoint) {
            SocketChannel channel = socketEndPoint.getChannel();
            try {
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
                channel.close();
            } catch (IOException ignored) {
                // the connection is gone either way, which is all this fault wants
            }
        }
        endPoint.close();
    }
}
