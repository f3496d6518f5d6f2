package dev.tenure.client;

import org.assertj.core.api.Condition;

/** What the tests assert of a client failure: a {@link TenureException} with one code. */
final class TenureCodes {
    private TenureCodes() {}

    static Condition<Throwable> code(TenureException.Code code) {
        return new Condition<>(
                t -> t instanceof TenureException e && e.code() == code, "a TenureException with code %s", code);
    }
}
