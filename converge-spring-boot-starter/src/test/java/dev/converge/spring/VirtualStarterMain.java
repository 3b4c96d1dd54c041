package dev.converge.spring;

import dev.converge.Converge;
import dev.converge.queue.JobType;
import dev.converge.testkit.ScratchDatabase;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A child JVM for {@link VirtualHandlerThreadsStarterTest}: the starter's engine in an application context
 * with the given {@code spring.threads.virtual.enabled}, one job run; prints the thread its handler ran on.
 */
public final class VirtualStarterMain {
    record Ping(String text) {
    }

    static final JobType<Ping> PING = JobType.of("starter.ping", Ping.class);

    private VirtualStarterMain() {
    }

    /** {@code Thread.isVirtual()} where the JDK has it (21 and later); false where it has no virtual threads. */
    private static boolean isVirtual(Thread t) throws ReflectiveOperationException {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
        } catch (NoSuchMethodException olderJdk) {
            return false;
        }
    }

    public static void main(String[] args) throws Exception {
        CompletableFuture<String> ranOn = new CompletableFuture<>();
        try (ScratchDatabase db = ScratchDatabase.create("cv_starter_virtual")) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                            ConvergeAutoConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + db.url(), "spring.datasource.username=" + db.user(),
                            "converge.poll=100ms", "converge.shutdown-grace=2s",
                            "spring.threads.virtual.enabled=" + args[0])
                    .withBean("ping", TypedJobHandler.class, () -> TypedJobHandler.of(PING, (p, ctx) -> {
                        ranOn.complete(Thread.currentThread().getName() + " virtual=" + isVirtual(Thread.currentThread()));
                    }))
                    .run(ctx -> {
                        ctx.getBean(Converge.class).enqueue(PING, new Ping("hello"));
                        System.out.println("handler ran on " + ranOn.get(30, TimeUnit.SECONDS));
                    });
        }
        System.exit(0);
    }
}
