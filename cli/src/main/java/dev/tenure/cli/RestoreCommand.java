package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.core.Limits;
import dev.tenure.core.StateMachine;
import dev.tenure.core.TokenEpoch;
import dev.tenure.server.backup.BackupFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "restore",
        description = {
            "Prepares a data directory from a backup, for a new cluster or a whole-cluster recovery.",
            "A node started on it starts from the backup's state, and its tokens start above the token floor,"
                    + " the start of the token epoch after the backup's (above every token the old cluster could"
                    + " issue).",
            "A backup file already restored once is refused without --token-floor: two clusters from one file"
                    + " would issue the same tokens (docs/fencing.md#tokens-after-a-restore)."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:prepared",
            "1:unexpected failure",
            "2:bad input (bad checksum, unknown format, DIR not empty, a floor that cannot be guaranteed):"
                    + " nothing written"
        })
final class RestoreCommand implements Callable<Integer> {
    /** Beside the backup file: the floors it was restored with, one a line. */
    static final String RESTORED_SUFFIX = ".restored";

    @Parameters(index = "0", paramLabel = "FILE", description = "The backup file (`tenure backup --out`).")
    Path file;

    @Option(names = "--data", required = true, description = "The data directory to prepare (new, or empty).")
    Path data;

    @Option(
            names = "--token-floor",
            description = "Start tokens above N instead of at the backup's next token epoch; N must be at least"
                    + " that epoch's start. Needed to restore a file a second time: for another member of the same"
                    + " new cluster, the floor the first restore printed; for another cluster, one above every"
                    + " token the first restored cluster can issue (the start of a later epoch).")
    @Nullable
    Long tokenFloor;

    @Option(
            names = "--json",
            description = "One JSON object on one line: data, logPosition, lastToken, tokenFloor, ms.")
    boolean json;

    @Override
    public Integer call() throws IOException {
        long started = System.nanoTime();
        requireEmpty(data);
        BackupFile.Backup backup;
        try {
            backup = BackupFile.read(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw bad("no such file " + file);
        } catch (BackupFile.BadBackupException e) {
            throw bad(e.getMessage());
        }
        long floor = floor(backup.header().lastToken());
        StateMachine state;
        try {
            state = StateMachine.restore(backup.snapshot(), Limits.defaults());
            state.raiseTokenFloor(floor);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw bad("backup " + file + ": its state does not restore: " + e.getMessage());
        }
        byte[] seed = state.snapshot();
        Files.createDirectories(data);
        BackupFile.write(
                data.resolve(BackupFile.SEED_FILE),
                new BackupFile.Header(
                        backup.header().logPosition(), floor, backup.header().createdAtMs(), seed.length),
                seed);
        Files.writeString(
                restoredMarker(),
                floor + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        report(backup.header(), floor, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        return ExitCodes.OK;
    }

    /**
     * The floor the restored counter starts at. Without --token-floor, the start of the epoch after
     * the backup's highest token, unless this file was restored before (a second cluster in the same
     * epoch would reissue the first one's tokens). With it, at least that start: never below a token
     * the old cluster may have issued.
     */
    private long floor(long lastToken) throws IOException {
        long epochFloor;
        try {
            epochFloor = TokenEpoch.floorAfter(lastToken);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage() + "; pass --token-floor");
        }
        if (tokenFloor != null) {
            if (tokenFloor < epochFloor) {
                throw bad("--token-floor " + tokenFloor + " is below " + epochFloor
                        + ", the start of the token epoch after the backup's: the old cluster may issue tokens"
                        + " up to " + (epochFloor - 1));
            }
            return tokenFloor;
        }
        Path marker = restoredMarker();
        if (Files.exists(marker)) {
            String used = String.join(", ", Files.readAllLines(marker, StandardCharsets.UTF_8));
            throw bad("backup " + file + " was restored before (token floor " + used + ", see " + marker
                    + "): a second cluster from it would issue the same tokens. For another member of that"
                    + " cluster pass --token-floor with its floor; for another cluster, --token-floor at or above "
                    + (TokenEpoch.last(Long.parseLong(used.replaceAll(".*, ", ""))) + 1));
        }
        return epochFloor;
    }

    private Path restoredMarker() {
        return file.resolveSibling(file.getFileName() + RESTORED_SUFFIX);
    }

    private static void requireEmpty(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        if (!Files.isDirectory(dir)) {
            throw bad("--data " + dir + " is not a directory");
        }
        try (Stream<Path> entries = Files.list(dir)) {
            if (entries.findAny().isPresent()) {
                throw bad("--data " + dir + " is not empty: a restore prepares a new data directory only");
            }
        }
    }

    private void report(BackupFile.Header header, long floor, long ms) {
        if (json) {
            JsonObject o = new JsonObject();
            o.addProperty("data", data.toAbsolutePath().normalize().toString());
            o.addProperty("logPosition", header.logPosition());
            o.addProperty("lastToken", header.lastToken());
            o.addProperty("tokenFloor", floor);
            o.addProperty("ms", ms);
            System.out.println(Json.line(o));
        } else {
            System.out.println("tenure: restored " + file + " into " + data + ": state at log position "
                    + header.logPosition() + ", last token " + header.lastToken() + ", new tokens start above "
                    + floor + " (" + ms + " ms)");
        }
    }

    private static ExitCodes.CliException bad(@Nullable String message) {
        return new ExitCodes.CliException(ExitCodes.BAD_INPUT, message);
    }
}
