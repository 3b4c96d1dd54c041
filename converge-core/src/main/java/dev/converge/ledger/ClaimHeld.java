package dev.converge.ledger;

import dev.converge.ConvergeException;

/**
 * Another live delivery holds the claim on this resource and is creating it right now. Not an
 * error: this delivery backs off and tries later, when the other has confirmed or died.
 */
public class ClaimHeld extends ConvergeException {
    public ClaimHeld(String message) {
        super(message);
    }
}
