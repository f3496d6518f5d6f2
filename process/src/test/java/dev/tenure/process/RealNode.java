package dev.tenure.process;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link NodeProcess} for a whole test class: started before its first test, on a data
 * directory of its own, and killed after its last.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RealNode NODE = new RealNode();
 * ... TenureClient.builder().endpoints(NODE.endpoint()) ...
 * }</pre>
 */
public final class RealNode implements BeforeAllCallback, AfterAllCallback {

    private NodeProcess node;
    private Path data;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        data = Files.createTempDirectory("tenure-node-");
        node = NodeProcess.start(data.resolve("node"));
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (node != null) {
            node.close();
        }
        if (data != null) {
            Dirs.deleteTree(data);
        }
    }

    /** host:port of the node's client endpoint. */
    public String endpoint() {
        if (node == null) {
            throw new IllegalStateException("the node starts before the test class's first test");
        }
        return node.endpoint();
    }
}
