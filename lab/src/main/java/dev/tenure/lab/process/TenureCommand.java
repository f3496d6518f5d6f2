package dev.tenure.lab.process;

import java.util.List;

/**
 * How to start a `tenure` process: the command up to and including its main class, for the given
 * JVM options (the cli gives its own jar, see {@code dev.tenure.process.JavaCommand}).
 */
@FunctionalInterface
public interface TenureCommand {
    List<String> command(List<String> jvmOptions);
}
