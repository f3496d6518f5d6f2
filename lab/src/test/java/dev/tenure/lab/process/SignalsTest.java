package dev.tenure.lab.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (Signals.allThreadsStopped(p.pid()) && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(1);
            }
            assertThat(Signals.allThreadsStopped(p.pid()))
                    .as("running again after CONT")
                    .isFalse();
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
