package dev.converge.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive is named after every JAR the children load: the CLI's launcher JAR names its
 * dependencies in its manifest, and a rebuilt dependency (the engine) must give a new name, or
 * every child maps a stale archive, which the JVM refuses, and starts cold.
 */
class ClassArchiveKeyTest {
    @TempDir
    Path dir;

    @Test
    void aRebuiltJarNamedByTheLaunchersManifestGivesANewKey() throws IOException {
        Path engine = jar(dir.resolve("lib/converge-core.jar"), null, "one");
        Path launcher = jar(dir.resolve("converge.jar"), "lib/converge-core.jar lib/absent.jar", "main");
        String before = ClassArchive.key(List.of(launcher));
        assertThat(ClassArchive.key(List.of(launcher))).as("nothing changed").isEqualTo(before);

        jar(engine, null, "two, rebuilt");
        Files.setLastModifiedTime(engine, FileTime.fromMillis(Files.getLastModifiedTime(engine).toMillis() + 5000));
        assertThat(ClassArchive.key(List.of(launcher))).isNotEqualTo(before);
    }

    private static Path jar(Path file, String classPath, String content) throws IOException {
        Files.createDirectories(file.getParent());
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (classPath != null) {
            m.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        }
        try (OutputStream out = Files.newOutputStream(file); JarOutputStream j = new JarOutputStream(out, m)) {
            j.putNextEntry(new JarEntry("content.txt"));
            j.write(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            j.closeEntry();
        }
        return file;
    }
}
