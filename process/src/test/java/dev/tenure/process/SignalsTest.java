package dev.tenure.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.testkit.Await;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SignalsTest {
    /** A JVM with a thread spinning on the CPU: the case where a thread runs on after kill returns. */
    private static Process spinningJvm() throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), Spinner.class.getName()))
                .redirectErrorStream(true)
                .start();
    }

    @Test
    void stopReturnsOnlyOnceEveryThreadIsStoppedAndContResumesThem() throws Exception {
        Process p = spinningJvm();
        try {
            assertThat(p.getInputStream().read()).as("the spinner started").isEqualTo('+');
            assertThat(Signals.allThreadsStopped(p.pid())).isFalse();

            Signals.send(p.pid(), "STOP");
            assertThat(Signals.allThreadsStopped(p.pid()))
                    .as("every thread stopped when STOP returns")
                    .isTrue();

            Signals.send(p.pid(), "CONT");
            Await.atMost(Duration.ofSeconds(10))
                    .every(Duration.ofMillis(1))
                    .until("running again after CONT", () -> !Signals.allThreadsStopped(p.pid()));
        } finally {
            p.destroyForcibly().waitFor();
        }
    }

    @Test
    void aSignalToAProcessThatIsGoneIsAnError() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        assertThatThrownBy(() -> Signals.send(p.pid(), "STOP"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("kill -STOP " + p.pid());
        assertThat(Signals.allThreadsStopped(p.pid())).as("nothing of it runs").isTrue();
    }

    /** Prints '+' and spins. */
    public static final class Spinner {
        public static void main(String[] args) {
            System.out.print('+');
            System.out.flush();
            long n = 0;
            while (n >= 0) {
                n++;
            }
        }
    }
}
