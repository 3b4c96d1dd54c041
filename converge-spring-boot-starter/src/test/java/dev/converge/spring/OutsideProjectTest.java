package dev.converge.spring;

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
 * New Maven projects outside the reactor, as a user would write them from the README: plain Java
 * with the BOM and the artifacts the README lists, and Spring Boot's parent with the BOM and the
 * starter. Each builds against a repository under target/ holding this build's own artifacts,
 * chained to the machine's local repository for everything else, read-only, so nothing is
 * installed into the shared one.
 */
class OutsideProjectTest {
    static final String VERSION = "0.1.0-SNAPSHOT";
    static final Path MODULE = Path.of("").toAbsolutePath();
    static final Path ROOT = MODULE.getParent();
    static final Path WORK = MODULE.resolve("target/outside-project");

    /** This build's artifacts, laid out as an install would, under target/ only. */
    static Path repository() throws IOException {
        Path repo = WORK.resolve("repo");
        publish(repo, "converge-parent", ROOT.resolve("pom.xml"), null);
        publish(repo, "converge-bom", ROOT.resolve("converge-bom/pom.xml"), null);
        publish(repo, "converge-core", ROOT.resolve("converge-core/pom.xml"), ROOT.resolve("converge-core/target/classes"));
        publish(repo, "converge-spring-boot-starter", ROOT.resolve("converge-spring-boot-starter/pom.xml"),
                ROOT.resolve("converge-spring-boot-starter/target/classes"));
        return repo;
    }

    /** Runs Maven in {@code app} on {@code repo}; fails with the build's log unless it succeeds. */
    static void maven(Path app, Path repo, String... goals) throws Exception {
        List<String> command = new ArrayList<>(List.of(ROOT.resolve("mvnw").toString(), "-B", "-q",
                "-Dmaven.repo.local=" + repo, "-Dmaven.repo.local.tail=" + System.getProperty("user.home") + "/.m2/repository"));
        command.addAll(List.of(goals));
        // online, so a plugin the machine lacks lands in the repository under target/, never in the shared one
        Process p = new ProcessBuilder(command).directory(app.toFile()).redirectErrorStream(true)
                .redirectOutput(app.resolve("build.log").toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("the outside build finished").isTrue();
        String log = Files.readString(app.resolve("build.log"));
        assertThat(p.exitValue()).as("the outside build: %s", log).isZero();
    }

    /**
     * Exactly the README's plain-Java dependencies, versions from the BOM only, on PostgreSQL with
     * the driver's own DataSource: a job runs, a job enqueued in a transaction that rolls back never
     * does, and a ledger-guarded create runs twice and creates once.
     */
    @Test
    void aPlainProjectWithTheReadmesDependenciesRunsAJobARollbackAndAGuardedCreate() throws Exception {
        deleteRecursively(WORK.resolve("plain"));
        Path repo = repository();
        Path app = WORK.resolve("plain");
        try (ScratchDatabase db = ScratchDatabase.create("cv_outside_plain")) {
            writePlainProject(app);
            Path classpath = app.resolve("classpath.txt");
            maven(app, repo, "compile", "dependency:build-classpath", "-Dmdep.outputFile=" + classpath);
            Process run = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", app.resolve("target/classes") + java.io.File.pathSeparator + Files.readString(classpath).trim(),
                    "demo.Main", db.url(), db.user())
                    .directory(app.toFile()).redirectErrorStream(true).redirectOutput(app.resolve("run.log").toFile()).start();
            assertThat(run.waitFor(2, TimeUnit.MINUTES)).as("the program finished").isTrue();
            String out = Files.readString(app.resolve("run.log"));
            assertThat(run.exitValue()).as("the program: %s", out).isZero();
            assertThat(out).contains("sent: [ada@example.com]", "rolled back: not run", "charges created: 1 for 2 runs");
            // the JARs' own names, not their paths (a checkout under a directory named like "fresh2" is no H2)
            java.util.List<String> jars = java.util.Arrays.stream(Files.readString(classpath).trim()
                    .split(java.io.File.pathSeparator)).map(e -> Path.of(e).getFileName().toString()).toList();
            assertThat(jars).isNotEmpty().noneMatch(j -> j.startsWith("h2-")).noneMatch(j -> j.startsWith("HikariCP-"));
        }
    }

    /** The libraries the BOM manages beside Converge are at the versions this build tests with. */
    @Test
    void theBomsLibraryVersionsAreTheBuildsOwn() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        String bom = Files.readString(ROOT.resolve("converge-bom/pom.xml"));
        for (String property : List.of("flyway.version", "hikaricp.version", "postgresql.version")) {
            java.util.regex.Pattern p = java.util.regex.Pattern.compile("<" + property + ">([^<]+)</" + property + ">");
            java.util.regex.Matcher inParent = p.matcher(parent);
            java.util.regex.Matcher inBom = p.matcher(bom);
            assertThat(inParent.find() && inBom.find()).as(property + " in both poms").isTrue();
            assertThat(inBom.group(1)).as(property).isEqualTo(inParent.group(1));
        }
    }

    @Test
    void aProjectWithOnlyTheBomAndTheStarterRunsAJobOnPostgres() throws Exception {
        deleteRecursively(WORK.resolve("app"));
        Path repo = repository();
        Path app = WORK.resolve("app");
        try (ScratchDatabase db = ScratchDatabase.create("cv_outside")) {
            writeProject(app, db);
            Path tree = app.resolve("tree.txt");
            maven(app, repo, "test", "dependency:tree", "-DoutputFile=" + tree);
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

    static void writePlainProject(Path app) throws IOException {
        // the README's "Use it as a library", plain Java: its dependencies block as written there
        String readme = Files.readString(ROOT.resolve("README.md"));
        int library = readme.indexOf("## Use it as a library");
        int start = readme.indexOf("```xml\n", library) + "```xml\n".length();
        String dependencies = readme.substring(start, readme.indexOf("```", start));
        assertThat(dependencies).contains("converge-bom").doesNotContain("<version>" + "${");
        write(app.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>demo</groupId>
                  <artifactId>plain</artifactId>
                  <version>1</version>
                  <properties>
                    <maven.compiler.source>17</maven.compiler.source>
                    <maven.compiler.target>17</maven.compiler.target>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                  </properties>
                %s
                </project>
                """.formatted(dependencies));
        write(app.resolve("src/main/java/demo/Main.java"), """
                package demo;

                import dev.converge.Converge;
                import dev.converge.ledger.LeafResource;
                import dev.converge.ledger.RepetitionSafety;
                import dev.converge.ledger.ResourceType;
                import dev.converge.queue.Job;
                import dev.converge.queue.JobType;
                import dev.converge.store.Store;
                import java.sql.Connection;
                import java.util.List;
                import java.util.Map;
                import java.util.concurrent.ConcurrentHashMap;
                import java.util.concurrent.CopyOnWriteArrayList;
                import java.util.concurrent.atomic.AtomicInteger;
                import org.postgresql.ds.PGSimpleDataSource;

                public class Main {
                    record Welcome(String email) {}
                    record Order(String id) {}

                    public static void main(String[] args) throws Exception {
                        PGSimpleDataSource dataSource = new PGSimpleDataSource();
                        dataSource.setURL(args[0]);
                        dataSource.setUser(args[1]);
                        List<String> sent = new CopyOnWriteArrayList<>();
                        // a payment provider that keeps one charge per idempotency key, as real ones do
                        Map<String, LeafResource> charges = new ConcurrentHashMap<>();
                        AtomicInteger creates = new AtomicInteger();
                        AtomicInteger runs = new AtomicInteger();
                        ResourceType payments = ResourceType.named("payment")
                                .createdBy(RepetitionSafety.IDEMPOTENT_BY_KEY, req -> charges.computeIfAbsent(req.idempotencyKey(), k -> {
                                    creates.incrementAndGet();
                                    return new LeafResource("ch_" + creates.get(), req.naturalKey(), req.tag(), Map.of());
                                }))
                                .deletedBy(charge -> charges.values().remove(charge))
                                .build();

                        JobType<Welcome> WELCOME = JobType.of("welcome", Welcome.class);
                        JobType<Order> CHARGE = JobType.of("charge", Order.class);
                        Store store = Store.of(dataSource);
                        store.migrate();
                        Converge engine = Converge.builder(store)
                                .queue("default", 4)
                                .resource(payments)
                                .handle(WELCOME, (w, ctx) -> sent.add(w.email()))
                                .handle(CHARGE, (o, ctx) -> {
                                    ctx.ledger().ensure(payments, "order-" + o.id(), "customer-7", Map.of("amount_cents", 4200));
                                    runs.incrementAndGet();
                                })
                                .build().start();

                        try (Connection connection = dataSource.getConnection()) {
                            connection.setAutoCommit(false);
                            engine.enqueue(connection, Job.of(WELCOME, new Welcome("rolled-back@example.com")));
                            connection.rollback();
                        }
                        engine.enqueue(WELCOME, new Welcome("ada@example.com"));
                        engine.enqueue(CHARGE, new Order("42"));
                        engine.enqueue(CHARGE, new Order("42"));
                        long deadline = System.currentTimeMillis() + 60_000;
                        while ((sent.isEmpty() || runs.get() < 2) && System.currentTimeMillis() < deadline) {
                            Thread.sleep(50);
                        }
                        Thread.sleep(500); // time for a job that should not run to show up
                        engine.close();
                        System.out.println("sent: " + sent);
                        System.out.println(sent.contains("rolled-back@example.com") ? "rolled back: ran" : "rolled back: not run");
                        System.out.println("charges created: " + creates.get() + " for " + runs.get() + " runs");
                    }
                }
                """);
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
