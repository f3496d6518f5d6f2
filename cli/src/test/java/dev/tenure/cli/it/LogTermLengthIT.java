package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.KvEntry;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.server.storage.ArchiveCatalog;
import io.aeron.archive.CatalogView;
import io.aeron.cluster.ConsensusModule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node sizes its log's terms to the largest request its limits let in (2 MiB with the default
 * limits), and a data directory whose log was recorded with other terms (the 8 MiB every node
 * used before) still starts, keeps its state and extends its log with the terms it has.
 */
class LogTermLengthIT {

    /** The value size whose largest request (value + 64 KiB) gets the 8 MiB terms of older logs. */
    private static final String EIGHT_MIB_TERMS_VALUE_BYTES = "valueBytesMax=458752";

    @TempDir
    Path data;

    @Test
    void aNewLogGetsTermsSizedToTheDefaultLimits() throws Exception {
        try (ServerProcess server = new ServerProcess(data).start();
                TenureClient client = server.patientClient()) {
            client.kv().put("k", "v".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(logRecordings())
                .extracting(ArchiveCatalog.Recording::termLength)
                .containsExactly(2 << 20);
    }

    @Test
    void aLogRecordedWithEightMiBTermsStartsKeepsItsStateAndGrowsWithItsOwnTerms() throws Exception {
        long tokenBefore;
        try (ServerProcess server = new ServerProcess(data)
                        .withOptions("--limit", EIGHT_MIB_TERMS_VALUE_BYTES)
                        .start();
                TenureClient client = server.patientClient();
                Session session = client.openSession()) {
            try (Lease lease = session.acquire("term-lock")) {
                tokenBefore = lease.token();
                client.kv().put("before", bytes("kept"));
            }
        }
        List<ArchiveCatalog.Recording> recorded = logRecordings();
        assertThat(recorded).extracting(ArchiveCatalog.Recording::termLength).containsExactly(8 << 20);

        // The default limits (so 2 MiB terms for a new log), put in force over the log's own.
        // Killed, not stopped: what it wrote is found again only in the log it extended.
        try (ServerProcess server =
                new ServerProcess(data).withOptions("--change-limits").start()) {
            try (TenureClient client = server.patientClient();
                    Session session = client.openSession()) {
                assertThat(text(client.kv().get("before").orElseThrow())).isEqualTo("kept");
                try (Lease lease = session.acquire("term-lock")) {
                    assertThat(lease.token()).as("tokens never go backwards").isGreaterThan(tokenBefore);
                    tokenBefore = lease.token();
                }
                client.kv().put("after", bytes("added"));
            }
            server.kill9();
        }
        List<ArchiveCatalog.Recording> extended = logRecordings();
        assertThat(extended)
                .as("the same recording, extended with its own terms")
                .extracting(ArchiveCatalog.Recording::recordingId, ArchiveCatalog.Recording::termLength)
                .containsExactly(Tuple.tuple(recorded.get(0).recordingId(), 8 << 20));

        // Recovered from that log.
        try (ServerProcess server = new ServerProcess(data).start();
                TenureClient client = server.patientClient();
                Session session = client.openSession()) {
            assertThat(text(client.kv().get("before").orElseThrow())).isEqualTo("kept");
            assertThat(text(client.kv().get("after").orElseThrow())).isEqualTo("added");
            try (Lease lease = session.acquire("term-lock")) {
                assertThat(lease.token()).isGreaterThan(tokenBefore);
            }
        }
    }

    /** The recordings of the cluster's log (not its snapshots) in the data directory's archive. */
    private List<ArchiveCatalog.Recording> logRecordings() {
        List<ArchiveCatalog.Recording> log = new ArrayList<>();
        int logStream = ConsensusModule.Configuration.logStreamId();
        CatalogView.listRecordings(data.resolve("archive").toFile(), ArchiveCatalog.Recording.into(r -> {
            if (r.streamId() == logStream) {
                log.add(r);
            }
        }));
        return log;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(KvEntry entry) {
        return new String(entry.value(), StandardCharsets.UTF_8);
    }
}
