package dev.tenure.cli;

import dev.tenure.server.storage.DataUpgrade;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "upgrade-data",
        description = {
            "Brings a stopped node's data directory, written by a release without log checksums, to the",
            "current format: checks the structure of the snapshot and log a start recovers from, checksums",
            "every frame as it is, and checks again. Damage older than the upgrade is not detected."
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

    @Override
    public Integer call() throws Exception {
        System.out.println("tenure: " + DataUpgrade.run(data, System.err));
        return 0;
    }
}
