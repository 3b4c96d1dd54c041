package dev.converge.testkit.leaf;

import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.token.TokenOperation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An in-memory mail server for token-guarded sends: it keeps every message it accepted, and can
 * be asked whether a message carrying a token arrived (the lookup that resolves an unknown send).
 */
public final class CountingMailbox implements TokenOperation<String> {
    private final List<String> received = new ArrayList<>();
    private final boolean canLookUp;
    private int dropAfterAccept;

    public CountingMailbox(boolean canLookUp) {
        this.canLookUp = canLookUp;
    }

    /** The next n sends are accepted, then the connection drops before the sender hears so. */
    public synchronized CountingMailbox dropAfterAccept(int n) {
        this.dropAfterAccept = n;
        return this;
    }

    @Override
    public String name() {
        return "send-welcome";
    }

    @Override
    public synchronized String use(String token) {
        received.add(token);
        if (dropAfterAccept > 0) {
            dropAfterAccept--;
            throw new AmbiguousOutcome("smtp", "connection dropped after DATA");
        }
        return "msg-" + received.size();
    }

    @Override
    public synchronized Optional<Boolean> wasUsed(String token) {
        return canLookUp ? Optional.of(received.contains(token)) : Optional.empty();
    }

    @Override
    public boolean canTellIfUsed() {
        return canLookUp;
    }

    public synchronized int count(String token) {
        return (int) received.stream().filter(token::equals).count();
    }

    public synchronized int total() {
        return received.size();
    }
}
