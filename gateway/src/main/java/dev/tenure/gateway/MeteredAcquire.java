package dev.tenure.gateway;

import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.Code;
import io.grpc.StatusRuntimeException;

/**
 * An acquire's answer that reports, once, how long the acquire took at this node and how it
 * ended: as the API's result (GRANTED, HELD, CANCELLED, ...), which is what a client acts on, not
 * the gRPC status, which is OK for all of them.
 */
final class MeteredAcquire implements Answer<AcquireResponse> {
    private final Answer<AcquireResponse> answer;
    private final Gateway.Listener listener;
    private final long startNanos = System.nanoTime();

    private MeteredAcquire(Answer<AcquireResponse> answer, Gateway.Listener listener) {
        this.answer = answer;
        this.listener = listener;
    }

    static Answer<AcquireResponse> of(Answer<AcquireResponse> answer, Gateway.Listener listener) {
        return new MeteredAcquire(answer, listener);
    }

    /** GRANTED for OK, else the code's name without its prefix: HELD, CANCELLED, SESSION_LOST, ... */
    static String result(Code code) {
        if (code == Code.CODE_OK) {
            return "GRANTED";
        }
        String name = code == Code.UNRECOGNIZED ? "CODE_UNSPECIFIED" : code.name();
        return name.substring("CODE_".length());
    }

    @Override
    public void ok(AcquireResponse response) {
        listener.acquireAnswered(result(response.getCode()), System.nanoTime() - startNanos);
        answer.ok(response);
    }

    @Override
    public void fail(StatusRuntimeException error) {
        listener.acquireAnswered(error.getStatus().getCode().name(), System.nanoTime() - startNanos);
        answer.fail(error);
    }

    @Override
    public boolean cancelled() {
        return answer.cancelled();
    }

    @Override
    public void onCancel(Runnable handler) {
        answer.onCancel(handler);
    }
}
