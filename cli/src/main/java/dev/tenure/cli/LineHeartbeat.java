package dev.tenure.cli;

import dev.tenure.client.Lease;
import dev.tenure.client.TenureException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A work loop's heartbeat for a MANUAL lease: every line read renews the lease once. A loop that
 * stops writing lines stops renewing, and its lease expires instead of being held forever.
 */
final class LineHeartbeat {

    /** Where the lines come from; {@code null} means there will be no more. */
    interface Source {
        InputStream open() throws IOException;
    }

    private LineHeartbeat() {}

    /** Renews once per line of {@code in} until it ends or the lease is gone. */
    static void start(String threadName, InputStream in, Lease lease) {
        InputStream[] once = {in};
        start(
                threadName,
                () -> {
                    InputStream next = once[0];
                    once[0] = null;
                    return next;
                },
                lease);
    }

    /** Renews once per line of {@code source}, opened again at each end, until the lease is gone. */
    static void start(String threadName, Source source, Lease lease) {
        Thread t = new Thread(() -> renewPerLine(source, lease), threadName);
        t.setDaemon(true);
        t.start();
    }

    private static void renewPerLine(Source source, Lease lease) {
        try {
            InputStream in;
            while (lease.isValid() && (in = source.open()) != null) {
                try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    while (lines.readLine() != null && lease.isValid()) {
                        lease.renew();
                    }
                }
            }
        } catch (IOException | TenureException e) {
            // The lease is lost or the source is gone: whoever waits on the lease reports the loss.
        }
    }
}
