package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.client.KvEntry;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "kv",
        description = "The fenced key-value store.",
        subcommands = {KvCommand.Put.class, KvCommand.Get.class, KvCommand.Del.class})
final class KvCommand {

    /** {@code --lock L --token N}: both or neither. */
    static final class FenceOptions {
        @Option(names = "--lock", required = true, description = "The lock whose current grant must be TOKEN.")
        String lock;

        @Option(names = "--token", required = true, description = "The fencing token the write claims.")
        long token;
    }

    static final String OVERRIDE_FENCE = "--override-fence";

    /** {@code --override-fence} makes sense only for an unfenced write. */
    private static void checkOverride(boolean overrideFence, @Nullable FenceOptions fence) {
        if (overrideFence && fence != null) {
            throw new CliException(
                    ExitCodes.BAD_INPUT, OVERRIDE_FENCE + " is for unfenced writes; it cannot go with --lock/--token");
        }
    }

    @Command(
            name = "put",
            description = {
                "Writes VALUE under KEY; with --lock/--token only if TOKEN is the lock's current grant (else exit 3).",
                "Without them, a key whose last write was fenced is refused (exit 3, naming the lock)" + " unless "
                        + OVERRIDE_FENCE + " is given."
            })
    static final class Put implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Parameters(index = "1", paramLabel = "VALUE")
        String value;

        @ArgGroup(exclusive = false)
        @Nullable
        FenceOptions fence;

        @Option(
                names = OVERRIDE_FENCE,
                description = "Write unfenced even if KEY's last write was fenced: it lands whatever the"
                        + " fencing lock's holder believes (a repair, a migration).")
        boolean overrideFence;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            checkOverride(overrideFence, fence);
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            try (TenureClient tenure = client.client()) {
                if (overrideFence) {
                    tenure.kv().putOverridingFence(key, bytes);
                } else if (fence == null) {
                    tenure.kv().put(key, bytes);
                } else {
                    tenure.kv().put(key, bytes, fence.lock, fence.token);
                }
                System.out.println("ok");
                return ExitCodes.OK;
            } catch (TenureException e) {
                throw Failures.of(e);
            }
        }
    }

    @Command(name = "get", description = "Prints the value of KEY and the token that wrote it (exit 3 if absent).")
    static final class Get implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Option(names = "--json", description = "One JSON object on one line.")
        boolean json;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            try (TenureClient tenure = client.client()) {
                Optional<KvEntry> entry = tenure.kv().get(key);
                if (entry.isEmpty()) {
                    throw new CliException(ExitCodes.CONFLICT, "no value under " + key);
                }
                KvEntry e = entry.get();
                String value = new String(e.value(), StandardCharsets.UTF_8);
                if (json) {
                    JsonObject o = new JsonObject();
                    o.addProperty("key", e.key());
                    o.addProperty("value", value);
                    o.addProperty("token", e.token());
                    o.addProperty("lock", e.lock());
                    o.addProperty("written_at_ms", e.writtenAt().toEpochMilli());
                    System.out.println(Json.line(o));
                } else {
                    System.out.println(value + "\t(token " + e.token()
                            + (e.lock() == null || e.lock().isEmpty() ? "" : ", lock " + e.lock()) + ")");
                }
                return ExitCodes.OK;
            } catch (TenureException ex) {
                throw Failures.of(ex);
            }
        }
    }

    @Command(
            name = "del",
            description = {
                "Deletes KEY; with --lock/--token only if TOKEN is the lock's current grant (else exit 3).",
                "Without them, a key whose last write was fenced is refused (exit 3, naming the lock)" + " unless "
                        + OVERRIDE_FENCE + " is given."
            })
    static final class Del implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @ArgGroup(exclusive = false)
        @Nullable
        FenceOptions fence;

        @Option(names = OVERRIDE_FENCE, description = "Delete unfenced even if KEY's last write was fenced.")
        boolean overrideFence;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            checkOverride(overrideFence, fence);
            try (TenureClient tenure = client.client()) {
                boolean existed = overrideFence
                        ? tenure.kv().deleteOverridingFence(key)
                        : fence == null ? tenure.kv().delete(key) : tenure.kv().delete(key, fence.lock, fence.token);
                System.out.println(existed ? "deleted" : "absent");
                return ExitCodes.OK;
            } catch (TenureException e) {
                throw Failures.of(e);
            }
        }
    }
}
