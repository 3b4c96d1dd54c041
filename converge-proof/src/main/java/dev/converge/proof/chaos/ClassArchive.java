package dev.converge.proof.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A class-data-sharing archive of the classes a server or worker loads, made once per class path
 * and kept in the temporary directory for later runs. Every child JVM maps it instead of loading
 * and verifying some 6,000 classes again: that cuts a start from about 3.5 to about 2 CPU-seconds,
 * which is what a run with a restart every few seconds spends most of its CPU on, on two cores.
 * Without it (it cannot be made, or the JVM rejects it) the children simply start slower.
 */
final class ClassArchive {
    private static final int KEEP = 3;
    private ClassArchive() {
    }

    /** The archive for this class path, made now by a throwaway API server if there is none yet. */
    static Optional<Path> prepare(Path runDir, List<String> serverArgs, Map<String, String> env, String healthUrl,
            Consumer<String> say, Consumer<ChildJvm> started) {
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (Files.isDirectory(Path.of(entry))) {
                return Optional.empty(); // the JVM archives classes from JARs only (a test run: it starts slower)
            }
        }
        Path file;
        try {
            Path dir = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "converge-chaos-cds"));
            file = dir.resolve(key() + ".jsa");
        } catch (IOException | RuntimeException e) {
            say.accept("no class-data archive (" + e.getMessage() + "); children start slower");
            return Optional.empty();
        }
        if (Files.isRegularFile(file)) {
            return Optional.of(file);
        }
        Path partial = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        long start = System.nanoTime();
        ChildJvm child = null;
        try {
            child = ChildJvm.start("archive", runDir.resolve("class-archive.log"), serverArgs, env, false,
                    List.of("-XX:ArchiveClassesAtExit=" + partial));
            started.accept(child);
            long end = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!LeafControl.answers(healthUrl)) {
                if (!child.alive() || System.nanoTime() > end) {
                    say.accept("the class-data archive could not be made (see class-archive.log); children start slower");
                    return Optional.empty();
                }
                Thread.sleep(200);
            }
            child.stop(60_000); // SIGTERM: the archive is written as the JVM exits
            if (Files.size(partial) > 0) {
                Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                pruneOld(file.getParent());
                say.accept(String.format("class-data archive made in %.1fs: %s", (System.nanoTime() - start) / 1e9, file));
                return Optional.of(file);
            }
        } catch (IOException e) {
            say.accept("the class-data archive could not be made (" + e.getMessage() + "); children start slower");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (child != null && child.alive()) {
                child.stop(1000);
            }
            try {
                Files.deleteIfExists(partial);
            } catch (IOException ignored) {
                // a stray temporary file in the temporary directory
            }
        }
        return Optional.empty();
    }

    /** Keeps the few newest archives (each build makes one, some 30 MB). */
    private static void pruneOld(Path dir) {
        try (var files = Files.list(dir)) {
            List<Path> archives = files.filter(f -> f.toString().endsWith(".jsa")).sorted((a, b) -> {
                try {
                    return Files.getLastModifiedTime(b).compareTo(Files.getLastModifiedTime(a));
                } catch (IOException e) {
                    return 0;
                }
            }).toList();
            for (Path old : archives.subList(Math.min(KEEP, archives.size()), archives.size())) {
                Files.deleteIfExists(old);
            }
        } catch (IOException e) {
            // an old archive left in the temporary directory is harmless
        }
    }

    /** Names the archive after the class path, its files' sizes and times, and the JVM. */
    private static String key() {
        List<Path> entries = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            entries.add(Path.of(e).toAbsolutePath());
        }
        return key(entries);
    }

    /**
     * Names the archive after these class path entries, and the JARs their manifests' Class-Path
     * names (a launcher JAR names its dependencies so), each with its size and time, and the JVM:
     * the JVM refuses an archive once any of them changed, so a rebuild needs a new one.
     */
    static String key(List<Path> entries) {
        StringBuilder s = new StringBuilder(System.getProperty("java.vm.version")).append('|')
                .append(System.getProperty("java.home"));
        for (Path p : entries) {
            describe(s, p);
            if (Files.isRegularFile(p) && p.toString().endsWith(".jar")) {
                for (Path named : manifestClassPath(p)) {
                    describe(s, named);
                }
            }
        }
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.toString()
                    .getBytes(StandardCharsets.UTF_8))).substring(0, 24);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void describe(StringBuilder s, Path p) {
        s.append('|').append(p);
        try {
            if (Files.isRegularFile(p)) {
                s.append(':').append(Files.size(p)).append(':').append(Files.getLastModifiedTime(p).toMillis());
            }
        } catch (IOException e) {
            s.append(":?");
        }
    }

    /** The files a JAR's manifest names in its Class-Path, relative to the JAR's folder. */
    private static List<Path> manifestClassPath(Path jar) {
        List<Path> out = new ArrayList<>();
        try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar.toFile())) {
            java.util.jar.Manifest m = j.getManifest();
            String cp = m == null ? null : m.getMainAttributes().getValue(java.util.jar.Attributes.Name.CLASS_PATH);
            if (cp != null) {
                for (String e : cp.trim().split("\\s+")) {
                    if (!e.isEmpty()) {
                        out.add(jar.toAbsolutePath().getParent().resolve(e).normalize());
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // not a readable JAR: its own size and time name it
        }
        return out;
    }
}
