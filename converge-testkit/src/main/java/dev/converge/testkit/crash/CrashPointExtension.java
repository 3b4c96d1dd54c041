package dev.converge.testkit.crash;

import dev.converge.crash.CrashPoint;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;
import org.junit.platform.commons.support.AnnotationSupport;

/** The engine behind {@link CrashPointTest}. */
public final class CrashPointExtension implements TestTemplateInvocationContextProvider {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(CrashPointExtension.class);

    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
        return AnnotationSupport.isAnnotated(context.getTestMethod(), CrashPointTest.class);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
        CrashPoint[] chosen = context.getRequiredTestMethod().getAnnotation(CrashPointTest.class).value();
        List<CrashPoint> points = chosen.length == 0 ? Arrays.asList(CrashPoint.values()) : Arrays.asList(chosen);
        Map<CrashPoint, int[]> tally = tally(context);
        return points.stream().map(p -> invocation(p, tally));
    }

    @SuppressWarnings("unchecked")
    private static Map<CrashPoint, int[]> tally(ExtensionContext context) {
        return context.getRoot().getStore(NS).getOrComputeIfAbsent("tally",
                k -> new EnumMap<CrashPoint, int[]>(CrashPoint.class), Map.class);
    }

    private static TestTemplateInvocationContext invocation(CrashPoint point, Map<CrashPoint, int[]> tally) {
        CrashInjector injector = new CrashInjector(point, 1);
        return new TestTemplateInvocationContext() {
            @Override
            public String getDisplayName(int index) {
                return "crash at " + point.id();
            }

            @Override
            public List<Extension> getAdditionalExtensions() {
                return List.of(new ParameterResolver() {
                    @Override
                    public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
                        Class<?> t = pc.getParameter().getType();
                        return t == CrashInjector.class || t == CrashPoint.class;
                    }

                    @Override
                    public Object resolveParameter(ParameterContext pc, ExtensionContext ec) {
                        return pc.getParameter().getType() == CrashPoint.class ? point : injector;
                    }
                }, (AfterTestExecutionCallback) ec -> {
                    int[] counts = tally.computeIfAbsent(point, k -> new int[2]);
                    counts[0] += injector.reached().getOrDefault(point, 0);
                    counts[1] += injector.crashed() ? 1 : 0;
                    System.out.printf("crash point %-28s reached %d time(s), crashed: %s%n", point.id(),
                            injector.reached().getOrDefault(point, 0), injector.crashed() ? "yes" : "no");
                    if (ec.getExecutionException().isEmpty() && !injector.crashed()) {
                        throw new AssertionError("crash point " + point.id() + " was never reached: this run proves "
                                + "nothing about it");
                    }
                });
            }
        };
    }
}
