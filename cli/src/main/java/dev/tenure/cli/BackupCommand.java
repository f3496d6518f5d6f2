package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.api.v1.BackupChunk;
import dev.tenure.api.v1.BackupHeader;
import dev.tenure.api.v1.BackupRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.server.backup.BackupFile;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "backup",
        description = {
            "Writes the whole replicated state of a live cluster, at one committed log position, to a file"
                    + " with a SHA-256 checksum.",
            "Needs the admin permission on every name. `tenure restore` prepares a data directory from it"
                    + " (docs/cluster.md#backup-and-restore)."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:written",
            "1:unexpected failure",
            "2:bad input (--out exists, or its directory does not)",
            "5:unavailable (no quorum, or the node did not answer in time)",
            "6:denied (the principal lacks admin)"
        })
final class BackupCommand implements Callable<Integer> {

    @Mixin
    TlsOptions tls;

    @Option(
            names = "--endpoint",
            description = "host:port of a Tenure node (default: $TENURE_ENDPOINT or 127.0.0.1:7420).")
    @org.jspecify.annotations.Nullable
    String endpoint;

    @Option(names = "--out", required = true, description = "The backup file to write (must not exist).")
    Path out;

    @Option(
            names = "--timeout",
            description = "How long the backup may take (default: ${DEFAULT-VALUE}).",
            defaultValue = "60s",
            converter = DurationConverter.class)
    java.time.Duration timeout;

    @Option(
            names = "--json",
            description = "One JSON object on one line: file, bytes, logPosition, lastToken, tokenFloor, ms.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        Path dir = out.toAbsolutePath().getParent();
        if (Files.exists(out) || dir == null || !Files.isDirectory(dir)) {
            throw new ExitCodes.CliException(
                    ExitCodes.BAD_INPUT,
                    "--out " + out
                            + (Files.exists(out)
                                    ? " exists: a backup never overwrites a file"
                                    : ": no such directory"));
        }
        String target = endpoint != null && !endpoint.isBlank() ? endpoint : defaultEndpoint();
        long started = System.nanoTime();
        ManagedChannel channel = CliChannels.factory(tls.settings())
                .apply(target.contains(",") ? target.substring(0, target.indexOf(',')) : target);
        BackupHeader header = null;
        ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
        try {
            Iterator<BackupChunk> chunks = TenureGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .backup(BackupRequest.getDefaultInstance());
            while (chunks.hasNext()) {
                BackupChunk c = chunks.next();
                if (c.hasHeader()) {
                    header = c.getHeader();
                }
                c.getData().writeTo(snapshot);
            }
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            int exit = code == Status.Code.PERMISSION_DENIED || code == Status.Code.UNAUTHENTICATED
                    ? ExitCodes.DENIED
                    : code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
                            ? ExitCodes.UNAVAILABLE
                            : ExitCodes.UNEXPECTED;
            throw new ExitCodes.CliException(
                    exit, "backup failed: " + e.getStatus().getDescription() + " (" + code + ")");
        } finally {
            channel.shutdownNow();
        }
        if (header == null || header.getSnapshotBytes() != snapshot.size()) {
            throw new ExitCodes.CliException(
                    ExitCodes.UNEXPECTED, "backup stream incomplete: " + snapshot.size() + " bytes");
        }
        byte[] bytes = snapshot.toByteArray();
        BackupFile.write(
                out,
                new BackupFile.Header(
                        header.getLogPosition(), header.getLastToken(), header.getCreatedAtMs(), bytes.length),
                bytes);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        long fileBytes = Files.size(out);
        long floor = dev.tenure.core.TokenEpoch.floorAfter(header.getLastToken());
        if (json) {
            JsonObject o = new JsonObject();
            o.addProperty("file", out.toAbsolutePath().normalize().toString());
            o.addProperty("bytes", fileBytes);
            o.addProperty("logPosition", header.getLogPosition());
            o.addProperty("lastToken", header.getLastToken());
            o.addProperty("tokenFloor", floor);
            o.addProperty("ms", ms);
            System.out.println(Json.line(o));
        } else {
            System.out.println("tenure: backup " + out + ": " + fileBytes + " bytes, state at log position "
                    + header.getLogPosition() + ", last token " + header.getLastToken() + ", restores with token floor "
                    + floor + " (" + ms + " ms)");
        }
        return ExitCodes.OK;
    }

    private static String defaultEndpoint() {
        String env = System.getenv("TENURE_ENDPOINT");
        return env == null || env.isBlank() ? ClientOptions.DEFAULT_ENDPOINT : env;
    }
}
