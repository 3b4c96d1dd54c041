package dev.converge.examples.orders;

import java.io.IOException;
import java.io.UncheckedIOException;

final class Providers {
    private Providers() {
    }

    static SimulatedProviders start() {
        try {
            return new SimulatedProviders();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
