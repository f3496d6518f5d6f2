package dev.tenure.cli;

import dev.tenure.gateway.Acl;
import dev.tenure.server.TenureServer;
import dev.tenure.server.acl.AclFile;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import sun.misc.Signal;

/**
 * Reads the node's ACL file again on SIGHUP, as daemons do with their configuration (a node
 * without one logs the signal and goes on). A file that
 * cannot be used changes nothing: the ACL in force stays, and one line says why. Sessions are not
 * dropped; only those of a principal the new file allows less are ended (see {@link
 * TenureServer#acl(Acl)}).
 */
@SuppressWarnings("restriction")
final class AclReload {
    private AclReload() {}

    static void onHangUp(Path file, TenureServer server, PrintStream log) {
        // On the JVM's signal thread, one reload at a time: the next SIGHUP waits for this one.
        Signal.handle(new Signal("HUP"), s -> reload(file, server, log));
    }

    /**
     * A node without an ACL file has nothing to read again; the JVM's default for SIGHUP would
     * end it (status 129), so that a {@code kill -HUP} sent to every daemon of a host, or a closed
     * terminal, would stop a node that was serving. One line says it was ignored.
     */
    static void ignoreHangUp(PrintStream log) {
        Signal.handle(
                new Signal("HUP"),
                s -> log.println("tenure: SIGHUP ignored: this node has no --acl file to read again"));
    }

    static void reload(Path file, TenureServer server, PrintStream log) {
        Acl next;
        try {
            next = AclFile.read(file);
        } catch (AclFile.BadAclException e) {
            log.println("tenure: acl not reloaded, the one in force stays: " + e.getMessage());
            return;
        }
        List<String> narrowed = server.acl(next);
        log.println("tenure: acl reloaded from " + file
                + (narrowed.isEmpty()
                        ? ""
                        : "; sessions ended for principals given less: " + String.join(", ", narrowed)));
    }
}
