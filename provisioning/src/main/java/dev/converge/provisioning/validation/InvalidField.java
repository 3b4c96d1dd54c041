package dev.converge.provisioning.validation;

/** An input field that does not validate: the API answers 400 or 422 naming it, never 500. */
public final class InvalidField extends IllegalArgumentException {
    private final String field;

    public InvalidField(String field, String problem) {
        super(field + " " + problem);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
