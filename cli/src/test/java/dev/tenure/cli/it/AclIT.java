package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real `tenure server --tls-* --acl FILE` and real client commands, each with its own client
 * certificate: every permission is enforced on each call, a refusal exits 6 naming the principal,
 * the permission and the name, and a reload on SIGHUP takes effect and ends the sessions of a
 * principal it gives less.
 */
class AclIT extends OnOneNode {
    private static final Duration EXIT = Duration.ofSeconds(60);
    private static final String ACL = """
            principals:
              orders-worker:
                - prefix: "orders/"
                  allow: [acquire, read, write]
              ops:
                - prefix: ""
                  allow: [acquire, read, write, admin, monitor]
            """;

    static Authority ca;
    static Credential worker;
    static Credential ops;
    static Credential stranger;
    static Path aclFile;

    @BeforeAll
    static void start() throws Exception {
        TestCertificates pki = new TestCertificates(data.resolve("pki"));
        ca = pki.authority("tenure-test-ca");
        Credential node = ca.server("node-0", "127.0.0.1");
        worker = ca.client("orders-worker");
        ops = ca.client("ops");
        stranger = ca.client("stranger");
        aclFile = data.resolve("acl.yaml");
        Files.writeString(aclFile, ACL);
        serve(new ServerProcess(data.resolve("node")).withAdmin().withOptions(withAcl(TlsArgs.server(node, ca))));
    }

    @Test
    void eachPermissionHoldsOnItsPrefixAndARefusalExitsSixNamingWhoWhatAndWhere() throws Exception {
        try (var holder = as(worker, "acquire", "orders/a", "--json")) {
            long token = TenureCli.json(holder.nextLine(EXIT)).get("token").getAsLong();
            assertThat(exit(as(worker, "kv", "put", "orders/k", "v", "--lock", "orders/a", "--token", "" + token)))
                    .isZero();
            assertThat(exit(as(worker, "kv", "get", "orders/k"))).isZero();
            holder.signal("TERM");
            assertThat(holder.waitFor(EXIT)).as(holder.output()).isZero();
        }
        assertDenied(
                as(worker, "acquire", "payments/1", "--no-wait"),
                "principal orders-worker may not acquire 'payments/1'");
        assertDenied(as(worker, "kv", "put", "payments/k", "v"), "principal orders-worker may not write 'payments/k'");
        assertDenied(as(worker, "kv", "get", "payments/k"), "principal orders-worker may not read 'payments/k'");
        assertDenied(as(worker, "status", "payments/1"), "principal orders-worker may not read 'payments/1'");
        assertDenied(as(stranger, "acquire", "orders/a", "--no-wait"), "principal stranger is not in the ACL");
    }

    @Test
    void listingLocksNeedsReadOnTheWholePrefix() throws Exception {
        try (var holder = as(worker, "acquire", "orders/l", "--json")) {
            holder.nextLine(EXIT);
            try (var listed = as(worker, "locks", "--prefix", "orders/", "--json")) {
                assertThat(listed.waitFor(EXIT)).as(listed.output()).isZero();
                assertThat(listed.stdout)
                        .anySatisfy(line -> assertThat(
                                        TenureCli.json(line).get("lock").getAsString())
                                .isEqualTo("orders/l"));
            }
            assertDenied(as(worker, "locks"), "principal orders-worker may not read every name");
            assertDenied(
                    as(worker, "locks", "--prefix", "orders"),
                    "principal orders-worker may not read every name under prefix 'orders'");
            holder.signal("TERM");
            assertThat(holder.waitFor(EXIT)).as(holder.output()).isZero();
        }
    }

    @Test
    void aForcedReleaseIsForAdminsAndTheHistoryNamesBothPrincipals() throws Exception {
        try (var holder = as(worker, "acquire", "orders/f", "--json")) {
            String token = TenureCli.json(holder.nextLine(EXIT)).get("token").getAsString();
            assertDenied(
                    as(worker, "release", "orders/f", "--token", token, "--force"),
                    "principal orders-worker may not admin 'orders/f'");
            assertThat(exit(as(ops, "release", "orders/f", "--token", token, "--force")))
                    .isZero();
            assertThat(holder.waitFor(EXIT))
                    .as("the holder hears of it: " + holder.output())
                    .isEqualTo(4);
        }
        try (var status = as(ops, "status", "orders/f", "--json")) {
            assertThat(status.waitFor(EXIT)).as(status.output()).isZero();
            JsonObject view = TenureCli.json(status.nextLine(Duration.ofSeconds(1)));
            var history = view.getAsJsonArray("history");
            JsonObject last = history.get(history.size() - 1).getAsJsonObject();
            assertThat(last.get("end").getAsString()).isEqualTo("REVOKED");
            assertThat(last.get("principal").getAsString()).isEqualTo("orders-worker");
            assertThat(last.getAsJsonObject("forced_by").get("principal").getAsString())
                    .isEqualTo("ops");
        }
    }

    @Test
    void theAdminPortServesHealthToAnyoneAndStatusMetricsAndTheDashboardToMonitorsOnly() throws Exception {
        assertThat(admin(null, "/health").statusCode()).isEqualTo(200);
        for (String path : List.of(
                "/status",
                "/metrics",
                "/",
                "/dashboard.js",
                "/api/cluster",
                "/api/locks?prefix=orders/",
                "/api/lock?name=orders/f")) {
            assertThat(admin(ops, path).statusCode()).as(path + " for ops").isEqualTo(200);
            HttpResponse<String> refused = admin(worker, path);
            assertThat(refused.statusCode()).as(path + " for orders-worker").isEqualTo(403);
            assertThat(refused.body()).contains("principal orders-worker may not monitor");
            assertThat(admin(null, path).statusCode())
                    .as(path + " without a certificate")
                    .isEqualTo(403);
        }
    }

    @Test
    void aReloadTakesEffectAndEndsTheSessionsOfAPrincipalItGivesLess() throws Exception {
        try (var holder = as(worker, "acquire", "orders/r", "--json")) {
            holder.nextLine(EXIT);
            try (var other = as(ops, "acquire", "ops/r", "--json")) {
                other.nextLine(EXIT);
                reload(ACL.replace("allow: [acquire, read, write]", "allow: [read]"), "acl reloaded");
                assertThat(holder.waitFor(EXIT))
                        .as("its session ended, its lease lost: " + holder.output())
                        .isEqualTo(4);
                assertDenied(
                        as(worker, "acquire", "orders/r", "--no-wait"),
                        "principal orders-worker may not acquire 'orders/r'");
                assertThat(exit(as(worker, "status", "orders/r")))
                        .as("read is still given")
                        .isZero();
                assertThat(other.process.isAlive())
                        .as("a principal given as much keeps its session")
                        .isTrue();
                other.signal("TERM");
                assertThat(other.waitFor(EXIT)).isZero();
            }
        } finally {
            reload(ACL, "acl reloaded");
        }
        // A file that cannot be read changes nothing: the ACL in force stays.
        try {
            reload("principals: [", "acl not reloaded");
            assertThat(exit(as(worker, "kv", "get", "orders/k2"))).isEqualTo(3); // allowed: no such key
        } finally {
            Files.writeString(aclFile, ACL);
        }
    }

    /**
     * A principal's own quota from the ACL file reaches the state through the log, so it decides
     * there, and a reload changes it there; other principals keep the node's.
     */
    @Test
    void aPrincipalsQuotaFromTheAclFileDecidesInTheStateAndAReloadChangesIt() throws Exception {
        String oneKey = ACL + "quotas:\n  orders-worker:\n    kvKeysPerPrincipalMax: 1\n";
        try {
            reload(oneKey, "the ACL's quotas are in force");
            assertThat(exit(as(worker, "kv", "put", "orders/q1", "v"))).isZero();
            try (var refused = as(worker, "kv", "put", "orders/q2", "v")) {
                assertThat(refused.waitFor(EXIT)).as(refused.output()).isEqualTo(2);
                assertThat(refused.output())
                        .contains("kvKeysPerPrincipalMax (1) reached by principal orders-worker")
                        .as("refused at the gateway: a put over its writer's quota costs the log nothing")
                        .contains("refused before the log, nothing changed");
            }
            assertThat(exit(as(ops, "kv", "put", "ops/q1", "v"))).isZero();
            assertThat(exit(as(ops, "kv", "put", "ops/q2", "v")))
                    .as("another principal keeps the node's quota")
                    .isZero();
            reload(
                    oneKey.replace("kvKeysPerPrincipalMax: 1", "kvKeysPerPrincipalMax: 2"),
                    "the ACL's quotas are in force");
            assertThat(exit(as(worker, "kv", "put", "orders/q2", "v"))).isZero();
            reload(oneKey, "the ACL's quotas were refused");
            assertThat(server.lines()).anyMatch(l -> l.contains("principal orders-worker holds Usage[keys=2"));
        } finally {
            for (String key : new String[] {"orders/q1", "orders/q2"}) {
                exit(as(worker, "kv", "del", key));
            }
            reload(ACL, "the ACL's quotas are in force");
        }
    }

    /**
     * Writes {@code acl} to the node's ACL file, sends SIGHUP and waits for the node's line that
     * starts with {@code "tenure: " + outcome}: a reload is not done when the signal is sent.
     */
    private static void reload(String acl, String outcome) throws Exception {
        long before = reloadLines(outcome);
        Files.writeString(aclFile, acl);
        server.signal("HUP");
        Await.atMost(EXIT).until("the node logs '" + outcome + "'", () -> reloadLines(outcome) > before);
    }

    private static long reloadLines(String outcome) {
        return server.lines().stream()
                .filter(l -> l.contains("tenure: " + outcome))
                .count();
    }

    private static void assertDenied(Processes.Running command, String message) throws Exception {
        try (command) {
            assertThat(command.waitFor(EXIT)).as(command.output()).isEqualTo(6);
            assertThat(command.output()).contains(message);
        }
    }

    private static int exit(Processes.Running command) throws Exception {
        try (command) {
            return command.waitFor(EXIT);
        }
    }

    private static Processes.Running as(Credential who, String... args) throws Exception {
        return cli.run(TlsArgs.client(server.endpoint(), ca, who, args));
    }

    private static String[] withAcl(String[] tls) {
        List<String> all = new ArrayList<>(List.of(tls));
        all.addAll(List.of("--acl", aclFile.toString()));
        return all.toArray(String[]::new);
    }

    private static HttpResponse<String> admin(Credential who, String path) throws Exception {
        HttpClient http = HttpClient.newBuilder()
                .sslContext(ca.clientContext(who))
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        return http.send(
                HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.adminPort() + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
