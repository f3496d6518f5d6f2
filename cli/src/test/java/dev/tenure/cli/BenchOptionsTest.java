package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad `tenure bench` options fail with exit 2 and a message naming the option and its limit,
 * before anything starts: the endpoint below does not exist, and the --data directory stays
 * empty (no throwaway server was started).
 */
class BenchOptionsTest {

    @TempDir
    Path data;

    private String run(int expectedExit, String... args) throws Exception {
        StringWriter err = new StringWriter();
        String[] all = new String[args.length + 2];
        all[0] = "bench";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--data=" + data;
        int code = Main.run(new PrintWriter(err, true), all);
        assertThat(code).as("exit code; stderr: %s", err).isEqualTo(expectedExit);
        try (var files = Files.list(data)) {
            assertThat(files).as("nothing was started or written").isEmpty();
        }
        return err.toString();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "parallel --clients 0        | --clients must be between 1 and 1024 (limit), was 0",
                "parallel --clients 5000     | --clients must be between 1 and 1024 (limit), was 5000",
                "parallel --duration 0s      | --duration must be between 1s and 1h (limit), was 0s",
                "parallel --duration 2h      | --duration must be between 1s and 1h (limit), was 2h",
                "parallel --warmup 11m       | --warmup must be between 0s and 10m (limit), was 11m",
                "takeover --rounds 0         | --rounds must be between 1 and 10000 (limit), was 0",
                "hold --sessions 10001       | --sessions must be between 1 and 10000 (limit), was 10001",
                "hold --ttl 500ms            | --ttl must be between 1s and 1h (limit), was 500ms",
                "watch --watchers 10001      | --watchers must be between 0 and 10000 (limit), was 10001",
                "hold --watchers -1          | --watchers must be between 0 and 10000 (limit), was -1",
                "uncontended --clients 4     | uncontended runs exactly one client",
                "contended --clients 1       | contended needs at least 2 clients",
                "nonsense                    | unknown workload 'nonsense'",
            })
    void badOptionsExitTwoAndNameTheLimit(String args, String message) throws Exception {
        String err = run(ExitCodes.BAD_INPUT, (args + " --endpoints 127.0.0.1:1").split("\\s+"));
        assertThat(err).contains(message);
    }

    @Test
    void unparsableValuesExitTwo() throws Exception {
        assertThat(run(ExitCodes.BAD_INPUT, "parallel", "--clients", "many", "--endpoints", "127.0.0.1:1"))
                .contains("--clients");
        assertThat(run(ExitCodes.BAD_INPUT, "parallel", "--duration", "5x", "--endpoints", "127.0.0.1:1"))
                .contains("is not a duration");
        assertThat(run(ExitCodes.BAD_INPUT, "--endpoints", "127.0.0.1:1")).contains("WORKLOAD");
    }

    @Test
    void aServerPidThatIsNotRunningIsRefused() throws Exception {
        assertThat(run(ExitCodes.BAD_INPUT, "hold", "--server-pid", "999999999", "--endpoints", "127.0.0.1:1"))
                .contains("server pid 999999999 is not a running process");
    }
}
