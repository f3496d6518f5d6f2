package dev.tenure.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** One in-process run of {@code tenure}: its exit code, stdout and stderr, with the environment given. */
record CliRun(int exit, String out, String err) {

    static CliRun of(Map<String, String> env, String... args) {
        StringWriter err = new StringWriter();
        PrintStream stdout = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Main.run(new PrintWriter(err, true), env::get, args);
        } finally {
            System.setOut(stdout);
        }
        return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString());
    }

    static CliRun of(String... args) {
        return of(Map.of(), args);
    }
}
