package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.server.storage.LogRepair;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "repair-log",
        description = {
            "Cuts a stopped single node's log before damage, dropping every write from there on.",
            "It cuts at the end of its last whole entry before damage at or after the log position given,",
            "dropping every write from there on, acknowledged or not. For a lone",
            "node whose start ended with exit 12 naming damage in the log, and no copy to restore from;",
            "a node drops a torn end past its last acknowledgement by itself. See docs/cluster.md."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:cut, or nothing to cut (one line says which, and where the log now ends)",
            "1:could not (the directory is in use by a running node, or another failure: one line says which)",
            "2:bad input (no such directory, a position below 0)",
            "12:damage it may not cut (before the position given, in a snapshot nothing replaces, or in a log"
                    + " the node had finished writing): one line names the file and byte; nothing was changed"
        })
final class RepairLogCommand implements Callable<Integer> {

    @Option(names = "--data", description = "Data directory (default: ${DEFAULT-VALUE}).", defaultValue = "tenure-data")
    Path data;

    @Option(
            names = "--accept-loss-from",
            required = true,
            paramLabel = "POSITION",
            description = "Log position from which the loss of every write is accepted: the position the"
                    + " exit-12 line names, or where the damaged entry begins.")
    long lossFrom;

    @Option(names = "--json", description = "One JSON object on one line: data, result (what the line says).")
    boolean json;

    @Override
    public Integer call() throws Exception {
        String result = LogRepair.run(data, lossFrom);
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
