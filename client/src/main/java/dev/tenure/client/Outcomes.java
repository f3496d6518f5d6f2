package dev.tenure.client;

import dev.tenure.api.v1.Code;

/** Maps the state machine's codes that every request can get to the client's exceptions. */
final class Outcomes {
    private Outcomes() {}

    static TenureException unexpected(String request, Code code, String message) {
        String detail = request + ": " + (message.isEmpty() ? code.name() : message);
        switch (code) {
            case CODE_LIMIT:
                return new LimitExceededException(detail);
            case CODE_INVALID:
                return new InvalidRequestException(detail);
            case CODE_SESSION_LOST:
                return new SessionLostException(detail);
            case CODE_REQUEST_TOO_OLD:
                // The outcome is no longer known; the caller must look at the state (e.g. status()).
                return new TenureException("outcome unknown, request id too old: " + detail);
            case CODE_CANCELLED:
                return new TenureException("cancelled: " + detail);
            case CODE_DENIED:
                return new DeniedException(detail);
            default:
                return new TenureException("unexpected " + code + ": " + detail);
        }
    }
}
