package dev.tenure.cli;

import dev.tenure.gateway.Acl;
import dev.tenure.gateway.AclChange;
import dev.tenure.server.TenureServer;
import dev.tenure.server.security.AclFile;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Reads the node's ACL file again on SIGHUP, as daemons do with their configuration (a node
 * without one logs the signal and goes on). A file that
 * cannot be used changes nothing: the ACL in force stays, and one line says why. Sessions are not
 * dropped; only those of a principal the new file allows less are ended, on every node, and a
 * principal the file no longer names is refused on every node until a reload names it again (see
 * {@link TenureServer#acl(Acl)}).
 */
@SuppressWarnings("restriction")
final class AclReload {
    private static final Logger LOG = LoggerFactory.getLogger(AclReload.class);

    private AclReload() {}

    static void onHangUp(Path file, TenureServer server) {
        // On the JVM's signal thread, one reload at a time: the next SIGHUP waits for this one.
        Signal.handle(new Signal("HUP"), s -> reload(file, server));
    }

    /**
     * A node without an ACL file has nothing to read again; the JVM's default for SIGHUP would
     * end it (status 129), so that a {@code kill -HUP} sent to every daemon of a host, or a closed
     * terminal, would stop a node that was serving. One line says it was ignored.
     */
    static void ignoreHangUp() {
        Signal.handle(
                new Signal("HUP"), s -> LOG.info("tenure: SIGHUP ignored: this node has no --acl file to read again"));
    }

    static void reload(Path file, TenureServer server) {
        Acl next;
        try {
            next = AclFile.read(file);
        } catch (AclFile.BadAclException e) {
            LOG.warn("tenure: acl not reloaded, the one in force stays: " + e.getMessage());
            return;
        }
        AclChange change = server.acl(next);
        LOG.info("tenure: acl reloaded from " + file
                + (change.revoked().isEmpty()
                        ? ""
                        : "; sessions ended on every node for principals given less: "
                                + String.join(", ", change.revoked()))
                + (change.barred().isEmpty()
                        ? ""
                        : "; refused on every node until named again: " + String.join(", ", change.barred()))
                + (change.reinstated().isEmpty() ? "" : "; named again: " + String.join(", ", change.reinstated())));
        CompletableFuture<?> unused = change.replicated().thenAccept(problems -> {
            if (!problems.isEmpty()) {
                LOG.warn("tenure: warning: the acl reload was not replicated: " + String.join("; ", problems)
                        + "; this node decides its own calls by the new file, the other nodes may not");
            }
        });
    }
}
