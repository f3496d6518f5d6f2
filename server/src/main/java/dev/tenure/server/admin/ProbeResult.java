package dev.tenure.server.admin;

import dev.tenure.api.v1.ServerStatusResponse;
import org.jspecify.annotations.Nullable;

/**
 * What the node's own periodic probe last saw, and how long ago: {@code /health} answers from it,
 * so that a request to the admin port never reaches the replicated log (anyone who reaches the
 * port may ask for {@code /health}; see docs/security.md, 'Which calls reach the log').
 *
 * @param status the node's status as the last probe that finished read it through the log; null
 *     until one has
 * @param ageMs milliseconds since that probe finished
 * @param ageMsMax the oldest result that still says how the node is: a probe finishes (answered or
 *     timed out) about once a second, so an older one means the probe itself is stuck, and its
 *     "ok" no longer says anything
 */
public record ProbeResult(@Nullable ServerStatusResponse status, long ageMs, long ageMsMax) {

    /** No probe has finished yet. */
    public static ProbeResult none(long ageMsMax) {
        return new ProbeResult(null, 0, ageMsMax);
    }

    /** The node served end to end at the last probe, and that probe is recent. */
    public boolean ok() {
        return status != null && "ok".equals(status.getHealth()) && !stale();
    }

    /** The last result is older than {@code ageMsMax}. */
    public boolean stale() {
        return status != null && ageMs > ageMsMax;
    }
}
