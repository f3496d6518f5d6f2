package dev.tenure.client;

import dev.tenure.api.v1.Code;

/** Maps the state machine's codes that every request can get to the client's exceptions. */
final class Outcomes {
    private Outcomes() {}

    static TenureException unexpected(String request, Code code, String message) {
        String detail = request + ": " + (message.isEmpty() ? code.name() : message);
        return switch (code) {
            case CODE_LIMIT -> new TenureException(TenureException.Code.LIMIT_EXCEEDED, detail);
            case CODE_INVALID -> new TenureException(TenureException.Code.INVALID_REQUEST, detail);
            case CODE_SESSION_LOST -> new TenureException(TenureException.Code.SESSION_LOST, detail);
            // The outcome is no longer known; the caller must look at the state (e.g. status()).
            case CODE_REQUEST_TOO_OLD ->
                new TenureException(TenureException.Code.OTHER, "outcome unknown, request id too old: " + detail);
            case CODE_CANCELLED -> new TenureException(TenureException.Code.OTHER, "cancelled: " + detail);
            case CODE_DENIED -> new TenureException(TenureException.Code.DENIED, detail);
            case CODE_EPHEMERAL_CONFLICT -> new TenureException(TenureException.Code.EPHEMERAL_CONFLICT, detail);
            default -> new TenureException(TenureException.Code.OTHER, "unexpected " + code + ": " + detail);
        };
    }
}
