package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.client.Kv;
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

    static final String IF_VERSION = "--if-version";

    /**
     * {@code --override-fence} makes sense only for an unfenced write, and is not a condition: it
     * does not go with {@code --if-version} either; a version is 0 or more.
     */
    private static void checkOverride(boolean overrideFence, @Nullable FenceOptions fence, @Nullable Long ifVersion) {
        if (overrideFence && fence != null) {
            throw new CliException(
                    ExitCodes.BAD_INPUT, OVERRIDE_FENCE + " is for unfenced writes; it cannot go with --lock/--token");
        }
        if (overrideFence && ifVersion != null) {
            throw new CliException(ExitCodes.BAD_INPUT, OVERRIDE_FENCE + " cannot go with " + IF_VERSION);
        }
        if (ifVersion != null && ifVersion < 0) {
            throw new CliException(
                    ExitCodes.BAD_INPUT,
                    IF_VERSION + " is " + ifVersion + "; it must be 0 (the key must not exist) or more");
        }
    }

    @Command(
            name = "put",
            description = {
                "Writes VALUE under KEY; with --lock/--token only if TOKEN is the lock's current grant (else exit 3).",
                "Without them, a key whose last write was fenced is refused (exit 3, naming the lock)" + " unless "
                        + OVERRIDE_FENCE + " is given.",
                "With " + IF_VERSION + " N only if KEY's version is N (0: KEY must not exist), else exit 3 naming"
                        + " the current version. Prints the key's new version.",
                "With --ephemeral KEY lives while this command's session does: the command keeps running,"
                        + " renewing it, until SIGINT/SIGTERM (deletes KEY, exit 0) or until the session is lost"
                        + " (exit 4)."
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

        @Option(
                names = IF_VERSION,
                paramLabel = "N",
                description = "Write only if KEY's version is N (0: only if KEY does not exist).")
        @Nullable
        Long ifVersion;

        @Option(
                names = "--ephemeral",
                description = "KEY is deleted when this command's session ends; the command holds the session.")
        boolean ephemeral;

        @Option(
                names = "--json",
                description = "One JSON line: key and version (with --ephemeral, once written, and session).")
        boolean json;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() throws InterruptedException {
            checkOverride(overrideFence, fence, ifVersion);
            if (ephemeral && (fence != null || overrideFence || ifVersion != null)) {
                throw new CliException(
                        ExitCodes.BAD_INPUT,
                        "--ephemeral goes with no fence, " + OVERRIDE_FENCE + " or " + IF_VERSION + "");
            }
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            if (ephemeral) {
                return KvEphemeral.hold(client, key, bytes, json);
            }
            try (TenureClient tenure = client.client()) {
                long version = write(tenure.kv(), bytes);
                if (json) {
                    JsonObject o = new JsonObject();
                    o.addProperty("key", key);
                    o.addProperty("version", version);
                    System.out.println(Json.line(o));
                } else {
                    System.out.println("ok (version " + version + ")");
                }
                return ExitCodes.OK;
            } catch (TenureException e) {
                throw Failures.of(e);
            }
        }

        private long write(Kv kv, byte[] bytes) {
            if (overrideFence) {
                return kv.putOverridingFence(key, bytes);
            } else if (ifVersion != null) {
                return fence == null
                        ? kv.putIfVersion(key, bytes, ifVersion)
                        : kv.putIfVersion(key, bytes, ifVersion, fence.lock, fence.token);
            } else if (fence == null) {
                return kv.put(key, bytes);
            }
            return kv.put(key, bytes, fence.lock, fence.token);
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
                    o.addProperty("version", e.version());
                    o.addProperty("ephemeral", e.ephemeral());
                    o.addProperty("ephemeral_session_id", e.ephemeralSessionId());
                    System.out.println(Json.line(o));
                } else {
                    System.out.println(value + "\t(token " + e.token()
                            + (e.lock() == null || e.lock().isEmpty() ? "" : ", lock " + e.lock()) + ", version "
                            + e.version() + (e.ephemeral() ? ", ephemeral, session " + e.ephemeralSessionId() : "")
                            + ")");
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
                        + OVERRIDE_FENCE + " is given.",
                "With " + IF_VERSION + " N only if KEY's version is N, else exit 3 naming the current version."
            })
    static final class Del implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @ArgGroup(exclusive = false)
        @Nullable
        FenceOptions fence;

        @Option(names = OVERRIDE_FENCE, description = "Delete unfenced even if KEY's last write was fenced.")
        boolean overrideFence;

        @Option(names = IF_VERSION, paramLabel = "N", description = "Delete only if KEY's version is N.")
        @Nullable
        Long ifVersion;

        @Option(names = "--json", description = "One JSON object on one line: key, result (deleted or absent).")
        boolean json;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            checkOverride(overrideFence, fence, ifVersion);
            try (TenureClient tenure = client.client()) {
                if (ifVersion != null) {
                    if (fence == null) {
                        tenure.kv().deleteIfVersion(key, ifVersion);
                    } else {
                        tenure.kv().deleteIfVersion(key, ifVersion, fence.lock, fence.token);
                    }
                    print("deleted");
                    return ExitCodes.OK;
                }
                boolean existed = overrideFence
                        ? tenure.kv().deleteOverridingFence(key)
                        : fence == null ? tenure.kv().delete(key) : tenure.kv().delete(key, fence.lock, fence.token);
                print(existed ? "deleted" : "absent");
                return ExitCodes.OK;
            } catch (TenureException e) {
                throw Failures.of(e);
            }
        }

        private void print(String result) {
            if (json) {
                JsonObject o = new JsonObject();
                o.addProperty("key", key);
                o.addProperty("result", result);
                System.out.println(Json.line(o));
            } else {
                System.out.println(result);
            }
        }
    }
}
