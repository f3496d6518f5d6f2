package dev.tenure.cli.it;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * An IT class whose tests share one lone server process in the class's own temporary directory,
 * and run `tenure` commands against it ({@link #tenure}); the node is closed after the last test.
 *
 * <p>A class whose node needs set-up (certificates, options) starts it in its own
 * {@code @BeforeAll} with {@link #serve}; any other gets a plain node (its data in {@code node})
 * before its first test.
 */
abstract class OnOneNode {

    @TempDir
    static Path data;

    static ServerProcess server;

    /** `tenure` commands against {@link #server}. */
    static TenureCli cli;

    /** Starts {@code node} as the node this class's tests share. */
    static void serve(ServerProcess node) throws Exception {
        server = node; // closed after the last test even if its start fails
        cli = new TenureCli(node.endpoint());
        node.start();
    }

    @BeforeEach
    void serveAPlainNodeUnlessTheClassStartedItsOwn() throws Exception {
        if (server == null) {
            serve(new ServerProcess(data.resolve("node")));
        }
    }

    @AfterAll
    static void closeTheNode() {
        if (server != null) {
            server.close();
            server = null;
            cli = null;
        }
    }

    /** `tenure ARGS` against the node, started. */
    static Processes.Running tenure(String... args) throws Exception {
        return cli.run(args);
    }

    static JsonObject json(String line) {
        return TenureCli.json(line);
    }

    /** The lock's view, from `tenure status LOCK --json`. */
    static JsonObject status(String lock) throws Exception {
        return cli.status(lock);
    }
}
