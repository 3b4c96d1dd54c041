package dev.converge.token.internal;

import dev.converge.queue.Delivery;
import dev.converge.token.StepTokens;
import dev.converge.token.Token;
import dev.converge.token.TokenOperation;
import dev.converge.token.TokenUse;
import java.util.Optional;

/** The engine's tokens bound to one delivery. */
public record DeliveryTokens(TokenService tokens, Delivery delivery) implements StepTokens {

    @Override
    public <T> TokenUse<T> useOnce(String pool, String subject, TokenOperation<T> op) {
        return tokens.useOnce(delivery, pool, subject, op);
    }

    @Override
    public Optional<Token> forSubject(String pool, String subject) {
        return tokens.forSubject(pool, subject);
    }
}
