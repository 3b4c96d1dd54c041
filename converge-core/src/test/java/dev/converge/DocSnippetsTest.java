package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet of the README and of docs/*.md is compiled by the build: its lines, in order
 * and one after the other (leading spaces aside), are lines of a Java file of the repository's
 * sources, which the build compiles (and, for most, runs as a test). A snippet edited on the page
 * alone, or code changed under a page, fails here with the snippet and where it is.
 */
class DocSnippetsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    record Snippet(Path page, int line, List<String> lines) {
        @Override
        public String toString() {
            return ROOT.relativize(page) + ":" + line + "\n" + String.join("\n", lines);
        }
    }

    @Test
    void everyJavaSnippetOfTheDocsIsInACompiledSourceFile() throws IOException {
        List<Snippet> snippets = new ArrayList<>(snippets(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            for (Path p : docs.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                snippets.addAll(snippets(p));
            }
        }
        assertThat(snippets).as("the pages have Java snippets to check").hasSizeGreaterThan(5);
        List<List<String>> sources = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(DocSnippetsTest::isCompiledSource).toList()) {
                sources.add(Files.readAllLines(f, StandardCharsets.UTF_8).stream().map(String::strip).toList());
            }
        }
        List<Snippet> loose = snippets.stream().filter(s -> sources.stream().noneMatch(f -> contains(f, s.lines())))
                .toList();
        assertThat(loose).as("snippets whose lines are not, as written, in any source file the build compiles")
                .isEmpty();
    }

    @Test
    void aSnippetNotInTheSourcesIsFound() {
        List<String> file = List.of("class A {", "void run() {", "engine.start();", "engine.close();", "}", "}");
        assertThat(contains(file, List.of("engine.start();", "engine.close();"))).isTrue();
        assertThat(contains(file, List.of("engine.close();", "engine.start();"))).isFalse();
        assertThat(contains(file, List.of("engine.start();", "", "engine.close();"))).isFalse();
    }

    static boolean isCompiledSource(Path f) {
        String s = ROOT.relativize(f).toString().replace('\\', '/');
        return s.endsWith(".java") && (s.contains("/src/main/java/") || s.contains("/src/test/java/"))
                && !s.contains("/target/") && !s.startsWith(".");
    }

    static boolean contains(List<String> file, List<String> snippet) {
        for (int i = 0; i + snippet.size() <= file.size(); i++) {
            boolean all = true;
            for (int k = 0; k < snippet.size() && all; k++) {
                all = file.get(i + k).equals(snippet.get(k));
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    static List<Snippet> snippets(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        List<Snippet> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("```java")) {
                int start = i + 1;
                List<String> body = new ArrayList<>();
                for (i = start; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                    body.add(lines.get(i).strip());
                }
                out.add(new Snippet(page, start + 1, body));
            }
        }
        return out;
    }
}
