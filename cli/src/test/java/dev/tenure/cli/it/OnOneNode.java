package dev.tenure.cli.it;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * An IT class whose tests share one lone server process, started before the first of them in the
 * class's own temporary directory (its data in {@code node} there) and closed after the last.
 */
abstract class OnOneNode {

    @TempDir
    static Path data;

    static ServerProcess server;

    @BeforeAll
    static void start() throws Exception {
        server = new ServerProcess(data.resolve("node")).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
