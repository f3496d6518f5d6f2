package dev.tenure.lab.worker;

import com.google.gson.JsonObject;
import dev.tenure.lab.history.History;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A worker's side of the history: each event is one {@code @ev {json}} line on stdout, flushed
 * at once so the lab stamps it when it happens. Named fault points print {@code @point NAME} and
 * wait for the lab's go-ahead on stdin.
 */
final class Emitter {
    private final AtomicLong ids = new AtomicLong();
    private final BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

    long nextId() {
        return ids.incrementAndGet();
    }

    /** Emits one event; {@code fields} are name/value pairs (lock, res, token, n, value, detail). */
    void emit(long id, String kind, String op, Object... fields) {
        JsonObject j = new JsonObject();
        j.addProperty("id", id);
        j.addProperty("kind", kind);
        j.addProperty("op", op);
        for (int i = 0; i + 1 < fields.length; i += 2) {
            Object v = fields[i + 1];
            if (v instanceof Number number) {
                j.addProperty((String) fields[i], number);
            } else {
                j.addProperty((String) fields[i], String.valueOf(v));
            }
        }
        synchronized (System.out) {
            System.out.println(History.PREFIX + j);
            System.out.flush();
        }
    }

    void info(String op, String detail) {
        emit(0, "info", op, "detail", detail);
    }

    /**
     * Reads the lab's go-ahead on a thread of its own: the answer is true once it came (or stdin
     * closed), so a loop can run until the lab says stop without waiting at a point.
     */
    BooleanSupplier goAhead() {
        AtomicBoolean go = new AtomicBoolean();
        Thread reader = new Thread(
                () -> {
                    try {
                        stdin.readLine();
                    } catch (IOException e) {
                        // stdin is gone: the lab is gone too, so stop as if told
                    }
                    go.set(true);
                },
                "lab-go-ahead");
        reader.setDaemon(true);
        reader.start();
        return go::get;
    }

    /** Stops here until the lab says go: the fault it injects lands exactly at this point. */
    void point(String name) {
        synchronized (System.out) {
            System.out.println("@point " + name);
            System.out.flush();
        }
        try {
            String line = stdin.readLine();
            if (line == null) {
                throw new IllegalStateException("the lab closed stdin at point " + name);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the go-ahead at point " + name, e);
        }
    }
}
