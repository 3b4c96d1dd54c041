package dev.converge.cli;

import dev.converge.provisioning.mail.MailSim;
import dev.converge.provisioning.options.DurationConverter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code converge mailsim}: an SMTP server with an HTTP listing of what it received, until stopped. */
@Command(name = "mailsim", mixinStandardHelpOptions = true,
        description = "Run a local SMTP server (for welcome emails) and an HTTP listing of the messages it received "
                + "(GET /messages, GET /tokens/{send-token}), until stopped.")
public final class MailsimCommand implements Callable<Integer> {
    @Option(names = "--smtp-port", defaultValue = "2525", description = "SMTP port (default ${DEFAULT-VALUE}).")
    int smtpPort;

    @Option(names = "--http-port", defaultValue = "8025", description = "Port of the HTTP listing (default ${DEFAULT-VALUE}).")
    int httpPort;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Bind address (default ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--idle-timeout", defaultValue = "30s", converter = DurationConverter.class,
            description = "Drop a connection on which nothing arrived for this long, and the message it left unfinished, "
                    + "as SMTP servers do; give the service the same as --smtp-server-timeout (default ${DEFAULT-VALUE}).")
    Duration idleTimeout;

    @Override
    public Integer call() throws Exception {
        CountDownLatch stop = new CountDownLatch(1);
        try (MailSim sim = MailSim.start(host, smtpPort, httpPort, idleTimeout)) {
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "mailsim-stop"));
            System.out.println("mailsim listening: SMTP on " + host + ":" + sim.smtpPort() + ", listing on http://" + host
                    + ":" + sim.httpPort() + "/messages");
            stop.await();
        }
        return 0;
    }
}
