package dev.tenure.cli;

import io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector;

/**
 * Netty's buffer leak detection, off in every {@code tenure} process unless the operator names a
 * level. It is a diagnostic of Netty's users' code: at its default level it samples one buffer
 * allocation in 128 and records where it was made, a stack trace each. A TLS connection allocates
 * several buffers per message, so a TLS node paid for those traces on its request path (about 1% of
 * its CPU samples, against 0.3% without TLS), and a node and bench with it off served 3-5% more
 * in {@code parallel} (BENCHMARKS.md, 'TLS with an ACL, one node and three', under 'A warm bench,
 * and Netty's leak detection off'). The level stays whatever a system
 * property sets, so a suspected leak can still be chased with {@code
 * -Dio.grpc.netty.shaded.io.netty.leakDetection.level=paranoid} in {@code TENURE_JAVA_OPTS}.
 */
final class LeakDetection {
    /** The property grpc-netty-shaded's copy of Netty reads its level from (its package, shaded). */
    static final String LEVEL_PROPERTY = "io.grpc.netty.shaded.io.netty.leakDetection.level";

    /** The property's older name, which that copy of Netty still reads. */
    static final String LEGACY_LEVEL_PROPERTY = "io.grpc.netty.shaded.io.netty.leakDetectionLevel";

    private LeakDetection() {}

    /** Turns leak detection off, unless a system property names a level: that level stays. */
    static void offUnlessAsked() {
        if (System.getProperty(LEVEL_PROPERTY) == null && System.getProperty(LEGACY_LEVEL_PROPERTY) == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }
}
