package dev.converge.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.testkit.ScratchDatabase;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A new Maven project outside the reactor, as a user would write it: Spring Boot's parent, our
 * BOM and our starter, a handler bean and a test that runs a job on PostgreSQL. It builds against
 * a repository under target/ holding this build's own artifacts, chained to the machine's local
 * repository for everything else, read-only, so nothing is installed into the shared one. Its
 * dependency tree must hold no H2 and no pool but the application's own HikariCP.
 */
class OutsideProjectTest {
    static final String VERSION = "0.1.0-SNAPSHOT";
    static final Path MODULE = Path.of("").toAbsolutePath();
    static final Path ROOT = MODULE.resolve("../..").normalize();
    static final Path WORK = MODULE.resolve("target/outside-project");

    @Test
    void aProjectWithOnlyTheBomAndTheStarterRunsAJobOnPostgres() throws Exception {
        deleteRecursively(WORK);
        Path repo = WORK.resolve("repo");
        publish(repo, "converge-parent", ROOT.resolve("pom.xml"), null);
        publish(repo, "converge-bom", ROOT.resolve("converge-bom/pom.xml"), null);
        publish(repo, "converge-core", ROOT.resolve("converge-core/pom.xml"), ROOT.resolve("converge-core/target/classes"));
        publish(repo, "converge-spring-boot-starter", ROOT.resolve("converge-spring-boot-starter/pom.xml"),
                ROOT.resolve("converge-spring-boot-starter/target/classes"));

        Path app = WORK.resolve("app");
        try (ScratchDatabase db = ScratchDatabase.create("cv_outside")) {
            writeProject(app, db);
            Path tree = app.resolve("tree.txt");
            // online, so a plugin the machine lacks lands in the repository under target/, never in the shared one
            Process p = new ProcessBuilder(ROOT.resolve("mvnw").toString(), "-B", "-q",
                    "-Dmaven.repo.local=" + repo, "-Dmaven.repo.local.tail=" + System.getProperty("user.home") + "/.m2/repository",
                    "test", "dependency:tree", "-DoutputFile=" + tree)
                    .directory(app.toFile()).redirectErrorStream(true).redirectOutput(app.resolve("build.log").toFile()).start();
            assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("the outside build finished").isTrue();
            String log = Files.readString(app.resolve("build.log"));
            assertThat(p.exitValue()).as("the outside build: %s", log).isZero();
            assertThat(Files.readString(app.resolve("target/surefire-reports/TEST-demo.FirstJobTest.xml")))
                    .contains("tests=\"1\"").contains("failures=\"0\"").contains("errors=\"0\"");
            String deps = Files.readString(tree);
            assertThat(deps).contains("dev.converge:converge-spring-boot-starter:jar:" + VERSION)
                    .contains("dev.converge:converge-core:jar:" + VERSION)
                    .doesNotContain("com.h2database").doesNotContain("c3p0").doesNotContain("commons-dbcp")
                    .doesNotContain("tomcat-jdbc").doesNotContain("vibur");
            assertThat(deps.split("com.zaxxer:HikariCP", -1)).as("one pool: the application's own").hasSize(2);
        }
    }

    /** Lays one artifact out as an install would, in the repository under target/ only. */
    static void publish(Path repo, String artifact, Path pom, Path classes) throws IOException {
        Path dir = repo.resolve("dev/converge/" + artifact + "/" + VERSION);
        Files.createDirectories(dir);
        Files.copy(pom, dir.resolve(artifact + "-" + VERSION + ".pom"), StandardCopyOption.REPLACE_EXISTING);
        if (classes != null) {
            try (OutputStream out = Files.newOutputStream(dir.resolve(artifact + "-" + VERSION + ".jar"));
                    JarOutputStream jar = new JarOutputStream(out); Stream<Path> files = Files.walk(classes)) {
                for (Path f : files.filter(f -> !f.equals(classes)).sorted().toList()) {
                    String name = classes.relativize(f).toString().replace('\\', '/');
                    // directory entries too, as the jar plugin writes them: classpath scanners (Flyway's) need them
                    jar.putNextEntry(new JarEntry(Files.isDirectory(f) ? name + "/" : name));
                    if (Files.isRegularFile(f)) {
                        Files.copy(f, jar);
                    }
                    jar.closeEntry();
                }
            }
        }
    }

    static void writeProject(Path app, ScratchDatabase db) throws IOException {
        write(app.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <parent>
                    <groupId>org.springframework.boot</groupId>
                    <artifactId>spring-boot-starter-parent</artifactId>
                    <version>4.0.7</version>
                    <relativePath/>
                  </parent>
                  <groupId>demo</groupId>
                  <artifactId>first-job</artifactId>
                  <version>1</version>
                  <properties><java.version>17</java.version></properties>
                  <dependencyManagement>
                    <dependencies>
                      <dependency>
                        <groupId>dev.converge</groupId>
                        <artifactId>converge-bom</artifactId>
                        <version>%s</version>
                        <type>pom</type>
                        <scope>import</scope>
                      </dependency>
                    </dependencies>
                  </dependencyManagement>
                  <dependencies>
                    <dependency>
                      <groupId>dev.converge</groupId>
                      <artifactId>converge-spring-boot-starter</artifactId>
                    </dependency>
                    <dependency>
                      <groupId>org.postgresql</groupId>
                      <artifactId>postgresql</artifactId>
                      <scope>runtime</scope>
                    </dependency>
                    <dependency>
                      <groupId>org.springframework.boot</groupId>
                      <artifactId>spring-boot-starter-test</artifactId>
                      <scope>test</scope>
                    </dependency>
                  </dependencies>
                </project>
                """.formatted(VERSION));
        // the Spring Boot half of the README's "Use it as a library", line for line
        write(app.resolve("src/main/java/demo/App.java"), """
                package demo;

                import dev.converge.queue.JobType;
                import dev.converge.spring.TypedJobHandler;
                import org.springframework.boot.autoconfigure.SpringBootApplication;
                import org.springframework.context.annotation.Bean;

                @SpringBootApplication
                public class App {
                    public record Welcome(String email) {}
                    public static final JobType<Welcome> WELCOME = JobType.of("welcome", Welcome.class);
                    public static final java.util.List<String> SENT = new java.util.concurrent.CopyOnWriteArrayList<>();

                    @Bean
                    TypedJobHandler<Welcome> welcome() {
                        return TypedJobHandler.of(WELCOME, (w, ctx) -> SENT.add(w.email()));
                    }
                }
                """);
        write(app.resolve("src/test/java/demo/FirstJobTest.java"), """
                package demo;

                import dev.converge.spring.TransactionalEnqueuer;
                import org.junit.jupiter.api.Test;
                import org.springframework.beans.factory.annotation.Autowired;
                import org.springframework.boot.test.context.SpringBootTest;

                @SpringBootTest
                class FirstJobTest {
                    @Autowired TransactionalEnqueuer jobs;

                    @Test
                    void runsAJob() throws Exception {
                        jobs.enqueue(App.WELCOME, new App.Welcome("ada@example.com"));
                        long deadline = System.currentTimeMillis() + 30_000;
                        while (!App.SENT.contains("ada@example.com")) {
                            if (System.currentTimeMillis() > deadline) throw new AssertionError("the job never ran");
                            Thread.sleep(50);
                        }
                    }
                }
                """);
        write(app.resolve("src/test/resources/application.properties"), "spring.datasource.url=" + db.url()
                + "\nspring.datasource.username=" + db.user() + "\nconverge.poll=100ms\nconverge.shutdown-grace=1s\n");
    }

    static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        List<Path> all = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            s.forEach(all::add);
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            Files.delete(all.get(i));
        }
    }
}
