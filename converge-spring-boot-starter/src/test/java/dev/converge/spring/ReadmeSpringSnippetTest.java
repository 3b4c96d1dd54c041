package dev.converge.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.converge.queue.JobType;
import dev.converge.testkit.ScratchDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The README's Spring Boot snippets, as written there (core's {@code DocSnippetsTest} checks the
 * page and this file agree), in a context with the starter on PostgreSQL: the handler bean runs,
 * and the job enqueued in {@code signUp} commits or rolls back with the user.
 */
class ReadmeSpringSnippetTest {
    record Welcome(String email) {}

    record User(String email) {}

    interface Mailer {
        void send(String email);
    }

    static final JobType<Welcome> WELCOME = JobType.of("readme.welcome", Welcome.class);
    static final List<String> sent = new CopyOnWriteArrayList<>();
    static ScratchDatabase db;

    @BeforeAll
    static void database() {
        db = ScratchDatabase.create("cv_readme_spring");
    }

    @AfterAll
    static void drop() {
        db.close();
    }

    /** The application's users, in its own table. */
    static class Users {
        private final JdbcTemplate jdbc;

        Users(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
            jdbc.execute("CREATE TABLE IF NOT EXISTS app_user (email TEXT PRIMARY KEY)");
        }

        void save(User u) {
            jdbc.update("INSERT INTO app_user (email) VALUES (?)", u.email());
        }
    }

    static class SignUps {
        private final Users users;
        private final TransactionalEnqueuer jobs;

        SignUps(Users users, TransactionalEnqueuer jobs) {
            this.users = users;
            this.jobs = jobs;
        }

        @Transactional
        public void signUp(User u) {
            users.save(u);
            jobs.enqueue(WELCOME, new Welcome(u.email()));   // jobs: TransactionalEnqueuer; rolled back with the user
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean
        TypedJobHandler<Welcome> welcome(Mailer mailer) {
            return TypedJobHandler.of(WELCOME, (w, ctx) -> mailer.send(w.email()));
        }

        @Bean
        Mailer mailer() {
            return sent::add;
        }

        @Bean
        Users users(JdbcTemplate jdbc) {
            return new Users(jdbc);
        }

        @Bean
        SignUps signUps(Users users, TransactionalEnqueuer jobs) {
            return new SignUps(users, jobs);
        }
    }

    @Test
    void theWelcomeIsSentForAUserSavedAndNeverForOneRolledBack() {
        sent.clear();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class, ConvergeAutoConfiguration.class))
                .withUserConfiguration(App.class)
                .withPropertyValues("spring.datasource.url=" + db.url(), "spring.datasource.username=" + db.user(),
                        "converge.poll=100ms", "converge.shutdown-grace=2s")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    SignUps signUps = ctx.getBean(SignUps.class);
                    signUps.signUp(new User("ada@example.com"));
                    assertThatThrownBy(() -> signUps.signUp(new User("ada@example.com")))
                            .as("the same user again: the insert fails, and the transaction rolls back")
                            .isInstanceOf(org.springframework.dao.DataIntegrityViolationException.class);
                    await().atMost(Duration.ofSeconds(20)).until(() -> sent.contains("ada@example.com"));
                    JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
                    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM cv_job WHERE kind = 'readme.welcome'",
                            Long.class)).as("one job: the second sign-up's enqueue rolled back with it").isEqualTo(1);
                    assertThat(sent).containsExactly("ada@example.com");
                });
    }
}
