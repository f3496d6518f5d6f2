package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "checkpoint",
        description = {
            "Stores VALUE (UTF-8) as LOCK's checkpoint, only if TOKEN is the lock's current grant (else exit 3).",
            "The next holder receives it (tenure run: TENURE_CHECKPOINT). At most checkpointBytesMax (16 KiB)."
        })
final class CheckpointCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "VALUE")
    String value;

    @Option(names = "--lock", required = true, description = "The lock whose checkpoint this is.")
    String lock;

    @Option(names = "--token", required = true, description = "The fencing token of the current grant.")
    long token;

    @Option(names = "--json", description = "One JSON object on one line: lock, token, bytes.")
    boolean json;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        try (TenureClient tenure = client.client()) {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            tenure.checkpoint(lock, token, bytes);
            if (json) {
                JsonObject o = new JsonObject();
                o.addProperty("lock", lock);
                o.addProperty("token", token);
                o.addProperty("bytes", bytes.length);
                System.out.println(Json.line(o));
            } else {
                System.out.println("ok");
            }
            return ExitCodes.OK;
        } catch (TenureException e) {
            throw Failures.of(e);
        }
    }
}
