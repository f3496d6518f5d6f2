package dev.tenure.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.TimeScale;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ChildProcessTest {

    @Test
    void everyLineOfBothStreamsIsHandledByTheTimeTheExitIsSeen() throws Exception {
        BlockingQueue<String> out = new LinkedBlockingQueue<>();
        BlockingQueue<String> err = new LinkedBlockingQueue<>();
        try (ChildProcess p = ChildProcess.start(
                "lines", List.of("sh", "-c", "echo one; echo two >&2; echo three; exit 3"), out::add, err::add)) {
            assertThat(p.awaitExit(TimeScale.scaled(Duration.ofSeconds(30)))).isTrue();
            assertThat(p.exitValue()).isEqualTo(3);
            assertThat(out).containsExactly("one", "three");
            assertThat(err).containsExactly("two");
            assertThat(p.stdoutEnded()).isDone();
        }
    }

    @Test
    void linesWrittenToStdinReachTheChild() throws Exception {
        BlockingQueue<String> out = new LinkedBlockingQueue<>();
        try (ChildProcess p =
                ChildProcess.start("echo", List.of("sh", "-c", "read l; echo got $l"), out::add, l -> {})) {
            p.send("go");
            assertThat(out.poll(TimeScale.scaledMillis(30_000), TimeUnit.MILLISECONDS))
                    .isEqualTo("got go");
        }
    }

    @Test
    void closingKillsTheProcessAndWhatItStartedEvenWhenStopped() throws Exception {
        BlockingQueue<String> out = new LinkedBlockingQueue<>();
        ChildProcess p =
                ChildProcess.start("tree", List.of("sh", "-c", "sleep 600 & echo $!; wait"), out::add, l -> {});
        long grandchild = Long.parseLong(out.poll(TimeScale.scaledMillis(30_000), TimeUnit.MILLISECONDS));
        ProcessHandle sleeper = ProcessHandle.of(grandchild).orElseThrow();
        p.signal("STOP");

        p.close();
        assertThat(p.isAlive()).isFalse();
        sleeper.onExit().get(TimeScale.scaledMillis(30_000), TimeUnit.MILLISECONDS);
        assertThat(sleeper.isAlive()).as("the process it started").isFalse();
        p.close(); // again: nothing to do
    }
}
