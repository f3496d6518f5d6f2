package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.server.storage.DataUpgrade;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "upgrade-data",
        description = {
            "Brings a stopped node's data directory, written by a release without log checksums, up to date.",
            "It checks the structure of the snapshot and log a start recovers from, checksums every frame",
            "as it is, and checks again. Damage older than the upgrade is not detected."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:upgraded, or nothing to do",
            "1:could not (the directory is in use by a running node, or another failure: one line says which)",
            "2:bad input (no such directory)",
            "12:corrupt data file (one line names the file and byte; nothing was changed but a set-aside snapshot)"
        })
final class UpgradeDataCommand implements Callable<Integer> {

    @Option(names = "--data", description = "Data directory (default: ${DEFAULT-VALUE}).", defaultValue = "tenure-data")
    Path data;

    @Option(names = "--json", description = "One JSON object on one line: data, result (what the line says).")
    boolean json;

    @Override
    public Integer call() throws Exception {
        String result;
        try (Progress progress = Progress.start("tenure upgrade-data")) {
            progress.status("checking and checksumming " + data);
            result = DataUpgrade.run(data, progress.wrap(System.err)::println);
        }
        if (json) {
            JsonObject o = new JsonObject();
            o.addProperty("data", data.toAbsolutePath().normalize().toString());
            o.addProperty("result", result);
            System.out.println(Json.line(o));
        } else {
            System.out.println("tenure: " + result);
        }
        return 0;
    }
}
