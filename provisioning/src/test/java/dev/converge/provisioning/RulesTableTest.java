package dev.converge.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's tables of rules tell the truth: every rule (the engine's R1..R15, the service's
 * S1..) names at least one class that enforces it and one test that shows it, and every class and
 * test method it names exists in the tree.
 */
class RulesTableTest {
    private static final Pattern ROW = Pattern.compile("^\\|\\s*([RS]\\d+)\\s*\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|\\s*$");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern CLASS = Pattern.compile("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*\\.[A-Z][A-Za-z0-9_]*");
    private static final Pattern TEST = Pattern.compile("([A-Z][A-Za-z0-9_]*Test)#([a-z][A-Za-z0-9_]*)");

    record Row(String rule, List<String> classes, List<String> tests) {
    }

    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.exists(dir.resolve("README.md")) && Files.exists(dir.resolve("converge-core")))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("the repository root (README.md next to converge-core)").isNotNull();
        return dir;
    }

    static List<Row> rows(String readme) {
        List<Row> rows = new ArrayList<>();
        for (String line : readme.split("\n")) {
            Matcher row = ROW.matcher(line.strip());
            if (!row.matches()) {
                continue;
            }
            List<String> classes = new ArrayList<>();
            Matcher code = CODE.matcher(row.group(3));
            while (code.find()) {
                if (CLASS.matcher(code.group(1)).matches()) {
                    classes.add(code.group(1));
                }
            }
            List<String> tests = new ArrayList<>();
            code = CODE.matcher(row.group(4));
            while (code.find()) {
                tests.add(code.group(1));
            }
            rows.add(new Row(row.group(1), classes, tests));
        }
        return rows;
    }

    /** What in a row does not exist in the tree, as readable problems. */
    static List<String> problems(Path root, List<Row> rows) {
        Map<String, Path> testFiles = new LinkedHashMap<>();
        List<Path> modules;
        try (Stream<Path> walk = Files.walk(root, 16)) {
            walk.filter(p -> p.getFileName().toString().endsWith("Test.java"))
                    .filter(p -> root.relativize(p).toString().replace('\\', '/').matches("[^/]+/src/test/java/.*"))
                    .forEach(p -> testFiles.putIfAbsent(p.getFileName().toString().replace(".java", ""), p));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Stream<Path> list = Files.list(root)) {
            modules = list.filter(p -> Files.isDirectory(p.resolve("src/main/java"))).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> problems = new ArrayList<>();
        for (Row row : rows) {
            if (row.classes().isEmpty()) {
                problems.add(row.rule() + ": names no enforcing class");
            }
            if (row.tests().isEmpty()) {
                problems.add(row.rule() + ": names no test");
            }
            for (String fqcn : row.classes()) {
                String file = "src/main/java/" + fqcn.replace('.', '/') + ".java";
                if (modules.stream().noneMatch(m -> Files.isRegularFile(m.resolve(file)))) {
                    problems.add(row.rule() + ": class " + fqcn + " does not exist");
                }
            }
            for (String test : row.tests()) {
                Matcher t = TEST.matcher(test);
                if (!t.matches()) {
                    problems.add(row.rule() + ": '" + test + "' is not TestClass#method");
                    continue;
                }
                Path file = testFiles.get(t.group(1));
                if (file == null) {
                    problems.add(row.rule() + ": test class " + t.group(1) + " does not exist");
                    continue;
                }
                try {
                    if (!Pattern.compile("void\\s+" + t.group(2) + "\\s*\\(").matcher(Files.readString(file)).find()) {
                        problems.add(row.rule() + ": " + t.group(1) + " has no test " + t.group(2));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return problems;
    }

    @Test
    void everyRuleNamesAClassAndATestAndAllOfThemExist() throws IOException {
        Path root = repositoryRoot();
        List<Row> rows = rows(Files.readString(root.resolve("README.md")));

        assertThat(rows).extracting(Row::rule).containsExactly("R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9",
                "R10", "R11", "R12", "R13", "R14", "R15", "S1", "S2", "S3", "S4");
        assertThat(problems(root, rows)).isEmpty();
    }

    @Test
    void aNameThatDoesNotExistIsCaught() {
        Path root = repositoryRoot();
        List<Row> rows = rows("| R3 | duplicate deliveries | `dev.converge.claim.NoSuchClaims` | `StaleWorkerTest#noSuchTest`, "
                + "`NoSuchTest#x` |\n| R4 | guesses | `dev.converge.ledger.AmbiguousOutcome` | |");

        assertThat(problems(root, rows)).containsExactly("R3: class dev.converge.claim.NoSuchClaims does not exist",
                "R3: StaleWorkerTest has no test noSuchTest", "R3: test class NoSuchTest does not exist",
                "R4: names no test");
    }
}
