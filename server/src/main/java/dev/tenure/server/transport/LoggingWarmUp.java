package dev.tenure.server.transport;

import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;

/**
 * Formats one log record at start, while the process can still open files. java.util.logging
 * (gRPC's and Netty's log) stamps each record in the default time zone, whose rules the JDK reads
 * from {@code lib/tzdb.dat} the first time they are needed. Out of file descriptors, that first
 * time failed: the warning that Netty's accept loop logs for EMFILE threw NoClassDefFoundError
 * ("Could not initialize class sun.util.calendar.ZoneInfoFile"), which ended the loop, and the
 * node accepted no connection again. Read now, the rules are in memory when that warning comes.
 */
public final class LoggingWarmUp {
    private LoggingWarmUp() {}

    public static void run() {
        new SimpleFormatter().format(new LogRecord(Level.WARNING, "warm-up"));
    }
}
