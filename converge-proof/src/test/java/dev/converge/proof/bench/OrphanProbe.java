package dev.converge.proof.bench;

import dev.converge.proof.chaos.ChildJvm;
import java.nio.file.Path;
import java.util.List;

/** A parent for {@link ScaleBenchTest}: starts one engine child the way {@code bench scale} does, prints its pid, waits to be killed. */
public final class OrphanProbe {
    private OrphanProbe() {
    }

    public static void main(String[] args) throws Exception {
        ChildJvm child = ChildJvm.standby("probe-child", Path.of(args[0]), ScaleNode.class, List.of(),
                List.of("engine", args[1], args[2], "2", "probe-child"));
        System.out.println("child " + child.process().pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
